import { setTimeout as sleep } from 'node:timers/promises';
import type { DemoEnvironment } from '../../infra/local/demo-types.js';
import { systemClock } from '../../lib/clock.js';
import { parseIdentity } from '../../lib/identity.js';
import { sendJob } from '../../lib/messaging/producer.js';
import { FINISHED_STATES } from '../../lib/states.js';
import type { WorkItem } from '../../lib/store/index.js';
import { PayloadStore, WorkItemStore } from '../../lib/store/index.js';
import type { DemoCase } from './cases.js';

/** A case sent through the queue, and its row once a worker finished it. */
interface QueuedResult {
  demoCase: DemoCase;
  item: WorkItem;
}

/**
 * Sends each case through the producer (hash, body to the payloads table, wake-up message) — the first one twice,
 * as a producer retry would — and waits until a worker polling the queue has finished every one of them.
 * Throws after `timeoutMs` naming the unfinished operations (is anything polling the queue?).
 */
async function runThroughQueue(env: DemoEnvironment, cases: DemoCase[], timeoutMs: number): Promise<QueuedResult[]> {
  const store = new WorkItemStore({ client: env.client, tableName: env.tables.jobs });
  const payloads = new PayloadStore(env.client, env.tables.payloads, systemClock);
  for (const demoCase of cases) await demoCase.prepare?.(env);
  for (const [index, demoCase] of cases.entries()) {
    const input = { ...demoCase.identity, jobType: demoCase.jobType, payload: demoCase.payload };
    await sendJob({ sqs: env.sqs, queueUrl: env.queueUrl, payloads }, input);
    if (index === 0) await sendJob({ sqs: env.sqs, queueUrl: env.queueUrl, payloads }, input);
  }
  const deadline = Date.now() + timeoutMs;
  const done = new Map<DemoCase, WorkItem>();
  while (done.size < cases.length) {
    for (const demoCase of cases) {
      if (done.has(demoCase)) continue;
      const item = await store.get(parseIdentity(demoCase.identity));
      if (item && FINISHED_STATES.includes(item.state)) done.set(demoCase, item);
    }
    if (done.size === cases.length) break;
    if (Date.now() > deadline) {
      const waiting = cases.filter((demoCase) => !done.has(demoCase)).map((c) => c.identity.operationId);
      throw new Error(
        `not finished after ${timeoutMs / 1000} s: ${waiting.join(', ')} (is a worker polling the queue?)`,
      );
    }
    await sleep(100);
  }
  return cases.map((demoCase) => ({ demoCase, item: done.get(demoCase) as WorkItem }));
}

export { type QueuedResult, runThroughQueue };
