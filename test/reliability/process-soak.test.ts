import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type JobIdentity, parseIdentity } from '../../lib/identity.js';
import { sendJob } from '../../lib/messaging/producer.js';
import type { WorkItem } from '../../lib/store/work-items/work-item.js';
import { budget, runSeed } from './support/chaos-mode.js';
import { createProcessFixture, type ProcessFixture } from './support/process-fixture.js';
import { seededRandom } from './support/random.js';
import { ReliabilityJobType, recordKey } from './support/reliability-jobs.js';
import { replayLine } from './support/replay/history.js';
import { ReliabilityReport } from './support/report.js';
import type { WorkerProcess } from './support/worker-processes.js';

const LEASE_MS = 1_500;
const VISIBILITY_SECONDS = 2;
const FINAL_STATES = ['succeeded', 'failed_terminal', 'unknown'];
const TENANTS = ['soak-a', 'soak-b'];
const TYPES = [ReliabilityJobType.record, ReliabilityJobType.charge, ReliabilityJobType.mail];

interface SentJob {
  identity: JobIdentity;
  jobType: string;
}

/**
 * Worker processes poll one real queue while the test freezes (SIGSTOP/SIGCONT) and kills (SIGKILL) them at
 * random and the sweeper runs on the wall clock. Afterwards every job must be in a final state and no
 * operation may show more than one effect.
 */
describe('worker processes under random SIGSTOP / SIGKILL on a real queue', () => {
  const report = new ReliabilityReport(__filename);
  let fixture: ProcessFixture;

  beforeAll(async () => {
    fixture = await createProcessFixture('rel-soak', LEASE_MS);
  });
  afterAll(async () => {
    await report.publish();
    await fixture.close();
  });

  async function startWorker(): Promise<WorkerProcess> {
    const [worker] = await fixture.pool.start(1);
    if (!worker) throw new Error('worker did not start');
    worker.startPolling(fixture.queueUrl, VISIBILITY_SECONDS);
    return worker;
  }

  /** Runs random faults for the chaos budget: freeze (then thaw) or kill (then replace) a worker, or sweep. */
  async function injectChaos(random: () => number, live: WorkerProcess[]): Promise<void> {
    const paused = new Map<WorkerProcess, number>();
    const deadline = Date.now() + budget.soakChaosMs;
    for (let round = 0; round < 10_000 && Date.now() < deadline; round += 1) {
      await new Promise((resolve) => setTimeout(resolve, 250 + Math.floor(random() * 350)));
      for (const [worker, until] of paused) {
        if (Date.now() >= until) {
          worker.resume();
          paused.delete(worker);
        }
      }
      const candidates = live.filter((worker) => worker.alive && !paused.has(worker));
      const target = candidates[Math.floor(random() * candidates.length)];
      const roll = random();
      if (target && roll < 0.35 && candidates.length > 1) {
        target.pause();
        paused.set(target, Date.now() + 300 + Math.floor(random() * 2_500));
        report.add('faultsInjected');
      } else if (target && roll < 0.5) {
        await target.kill();
        report.add('faultsInjected');
        live.splice(live.indexOf(target), 1, await startWorker());
      } else if (roll < 0.7) {
        await fixture.sweep();
      }
    }
    for (const worker of paused.keys()) worker.resume();
  }

  /** Sweeps until every job is final or the bounded wait ends; returns the items. */
  async function settle(jobs: SentJob[]): Promise<Map<string, WorkItem | undefined>> {
    const items = new Map<string, WorkItem | undefined>();
    const deadline = Date.now() + 30_000 + budget.soakJobs * 250;
    while (Date.now() < deadline) {
      for (const job of jobs) items.set(job.identity.operationId, await fixture.store.get(parseIdentity(job.identity)));
      if ([...items.values()].every((item) => FINAL_STATES.includes(String(item?.state)))) break;
      await fixture.sweep();
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    return items;
  }

  it(
    'loses no job and lets no operation take effect twice',
    async () => {
      const seed = runSeed();
      console.log(
        `[leasefence reliability] process soak seed ${seed} (same fault schedule: LEASEFENCE_SEED=${seed}; timing is real)`,
      );
      const random = seededRandom(seed);
      const live = await Promise.all(Array.from({ length: budget.soakWorkers }, () => startWorker()));
      const jobs: SentJob[] = Array.from({ length: budget.soakJobs }, (_, index) => ({
        identity: { tenantId: TENANTS[index % 2] as string, operationId: `soak-${seed}-${index}` },
        jobType: TYPES[index % 3] as string,
      }));
      const produce = async () => {
        for (const job of jobs) {
          const payload = { amount: 1 + (job.identity.operationId.length % 9), pauseAt: 'none', pauseAttempt: 0 };
          await sendJob(
            { sqs: fixture.sqs, queueUrl: fixture.queueUrl, payloads: fixture.payloads },
            { ...job.identity, jobType: job.jobType, payload: { ...payload, workMs: Math.floor(random() * 1_200) } },
          );
          await new Promise((resolve) => setTimeout(resolve, budget.soakChaosMs / budget.soakJobs / 2));
        }
      };

      await Promise.all([produce(), injectChaos(random, live)]);
      const items = await settle(jobs);

      const states: Record<string, number> = {};
      let duplicates = 0;
      let lost = 0;
      for (const tenantId of TENANTS) {
        const charges = await fixture.ledger.chargesByOperation(tenantId);
        const mails = await fixture.ledger.mailsByOperation(tenantId);
        for (const job of jobs.filter((candidate) => candidate.identity.tenantId === tenantId)) {
          const item = items.get(job.identity.operationId);
          const state = String(item?.state);
          states[state] = (states[state] ?? 0) + 1;
          if (!FINAL_STATES.includes(state)) lost += 1;
          const effects =
            job.jobType === ReliabilityJobType.charge
              ? (charges.get(job.identity.operationId) ?? [])
              : (mails.get(job.identity.operationId) ?? []);
          duplicates += Math.max(0, effects.length - 1);
          if (state === 'succeeded' && job.jobType !== ReliabilityJobType.record) expect(effects).toHaveLength(1);
          for (const effect of effects) expect(effect).toMatchObject({ operationId: job.identity.operationId });
          if (state === 'succeeded' && job.jobType === ReliabilityJobType.record) {
            const record = await fixture.client.send(
              new GetCommand({ TableName: fixture.ledgerTable.tableName, Key: recordKey(job.identity) }),
            );
            expect(record.Item).toMatchObject({ writer_epoch: item?.fence, tenantId });
          }
        }
        for (const charge of [...charges.values()].flat()) expect(charge.tenantId).toBe(tenantId);
      }
      const takenOver = [...items.values()].filter((item) => Number(item?.fence) > 1).length;
      console.log(
        `[leasefence reliability] process soak: final states ${JSON.stringify(states)}, taken over ${takenOver}`,
      );
      report.add('lostJobs', lost);
      report.add('duplicateEffects', duplicates);
      // every job's row, as the engine committed it (killed and paused workers, the sweeper), replayed through the model
      const replay = fixture.replay(jobs.map((job) => job.identity));
      report.addReplay(replay);
      console.log(`[leasefence reliability] process soak, ${replayLine(replay)}`);

      expect(lost).toBe(0);
      expect(duplicates).toBe(0);
      expect(replay.illegal).toEqual([]);
      expect(replay.histories).toBe(jobs.length);
      expect(fixture.recorder.unrecorded).toEqual({}); // every write to the jobs table was seen
    },
    budget.testTimeoutMs + budget.soakChaosMs,
  );
});
