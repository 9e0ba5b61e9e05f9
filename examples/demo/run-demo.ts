import { supportsTransactions } from '../../infra/local/capabilities.js';
import type {
  DemoEnvironment,
  DemoOperation,
  DemoOptions,
  DemoReport,
  Timeline,
} from '../../infra/local/demo-types.js';
import { formatIdentity } from '../../lib/identity.js';
import type { AnyJobDefinition } from '../../lib/job-definition.js';
import { createExampleJobs } from '../jobs/index.js';
import { type DemoCase, inventoryCase, refundCase, statementCase } from './cases.js';
import { runThroughQueue } from './queued.js';
import { runStalledWorker, type StallSpec } from './stall.js';

/** Options of the demo: a tag that makes its operation ids unique (persisted data survives runs), and a wait bound. */
/** The `pk` of a put request's item, or '' (the stalled worker freezes after a chosen put). */
function putKey(input: Record<string, unknown>): string {
  // Fenced puts reach the client marshalled (`{ S: … }`); a DocumentClient put carries the plain string.
  const pk = (input.Item as { pk?: unknown } | undefined)?.pk;
  if (typeof pk === 'string') return pk;
  const marshalled = (pk as { S?: unknown } | undefined)?.S;
  return typeof marshalled === 'string' ? marshalled : '';
}

/** The two stalled-worker scenarios (refund C+B, statement B) on the example job definitions. */
function stallSpecs(tag: string, jobs: Map<string, AnyJobDefinition>): Array<{ demoCase: DemoCase; spec: StallSpec }> {
  const refund = refundCase(`refund-r_816-${tag}`);
  const statement = statementCase(`statement-a43-2026-09-13-${tag}`, `a43-${tag}`);
  const definition = (type: string) => {
    const found = jobs.get(type);
    if (!found) throw new Error(`example job ${type} is not defined`);
    return found;
  };
  return [
    {
      demoCase: refund,
      spec: {
        title: `A stalled worker: refund settlement ${formatIdentity(refund.identity)} (class C+B)`,
        definition: definition(refund.jobType),
        identity: refund.identity,
        payload: refund.payload,
        pauseAfter: (input) => putKey(input).startsWith('gateway#'),
        pausedAfterText: "stamped the refund row 'sending' under fence 1 and called the gateway (the refund was made)",
        resumedWriteText: "confirm of the refund row ('sent')",
      },
    },
    {
      demoCase: statement,
      spec: {
        title: `A stalled worker: statement publication ${formatIdentity(statement.identity)} (class B)`,
        definition: definition(statement.jobType),
        identity: statement.identity,
        payload: statement.payload,
        pauseAfter: (input) => putKey(input).endsWith('#object'),
        pausedAfterText: 'wrote its statement object under fence 1',
        resumedWriteText: 'pointer update (to publish its statement)',
      },
    },
  ];
}

/**
 * The built-in demo: example jobs through the queue (the first sent twice, as a producer retry), then a stalled
 * worker per fenced example — worker-A freezes mid-job, worker-B takes over with fence + 1, worker-A's late write is
 * rejected — and the side effects counted at their targets. Class A (inventory) runs only where the engine has
 * TransactWriteItems; elsewhere it is reported as skipped, with the reason. Something must poll the queue.
 */
async function runDemo(env: DemoEnvironment, options: DemoOptions = {}): Promise<DemoReport> {
  const tag = options.runTag ?? Date.now().toString(36).slice(-6);
  const transactions = await supportsTransactions(env.client, env.tables.jobs);
  const jobs = new Map(createExampleJobs(env.tables.examples).map((job) => [job.type, job]));
  const queuedCases = [
    refundCase(`refund-r_815-${tag}`),
    statementCase(`statement-a42-2026-09-13-${tag}`, `a42-${tag}`),
  ];
  const skipped: DemoReport['skipped'] = [];
  if (transactions) queuedCases.push(inventoryCase(`reserve-order-77-${tag}`, `sku-${tag}`));
  else {
    skipped.push({
      jobType: 'inventory-reservation',
      reason: `class A needs TransactWriteItems, which ${env.engineName} does not have; run against an engine with transactions (e.g. moto) to include it`,
    });
  }
  const began = Date.now();
  const queued = await runThroughQueue(env, queuedCases, options.timeoutMs ?? 30_000);
  const operations: DemoOperation[] = [];
  const queueTimeline: Timeline = { title: 'Jobs through the queue (producer ▶ SQS ▶ worker ▶ DynamoDB)', events: [] };
  for (const [index, { demoCase, item }] of queued.entries()) {
    const again = index === 0 ? ' — sent twice, as a producer retry would; the second message was a replay' : '';
    queueTimeline.events.push({
      atMs: Date.now() - began,
      actor: 'local worker',
      text: `${demoCase.jobType} ${formatIdentity(demoCase.identity)}: ${item.state} under fence ${item.fence}${again}`,
    });
    operations.push(await operation(env, demoCase, 'queue', item.state, item.fence));
  }
  const timelines: Timeline[] = [queueTimeline];
  let staleWritesRejected = 0;
  for (const { demoCase, spec } of stallSpecs(tag, jobs)) {
    const outcome = await runStalledWorker(env, spec);
    timelines.push(outcome.timeline);
    staleWritesRejected += outcome.staleWritesRejected;
    operations.push(
      await operation(env, demoCase, 'stalled worker', outcome.item?.state ?? 'missing', outcome.item?.fence ?? 0),
    );
  }
  const counts = new Set(operations.map((entry) => entry.sideEffects));
  return {
    runTag: tag,
    engine: { name: env.engineName, transactions },
    operations,
    timelines,
    staleWritesRejected,
    skipped,
    sideEffectsPerOperation: counts.size === 1 ? (operations[0]?.sideEffects ?? 0) : 'mixed',
  };
}

async function operation(
  env: DemoEnvironment,
  demoCase: DemoCase,
  path: DemoOperation['path'],
  state: string,
  fence: number,
): Promise<DemoOperation> {
  return {
    ...demoCase.identity,
    jobType: demoCase.jobType,
    targetClass: demoCase.targetClass,
    path,
    state,
    fence,
    ...(await demoCase.inspect(env)),
    sideEffectKind: demoCase.sideEffectKind,
  };
}

export { type DemoOptions, runDemo, stallSpecs };
