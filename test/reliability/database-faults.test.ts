import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { budget, runSeed } from './support/chaos-mode.js';
import { createDatabaseFixture, type DatabaseFixture, type SentJob } from './support/database-fixture.js';
import { DatabaseJobs, jobsOf, type Tally } from './support/database-jobs.js';
import { seededRandom } from './support/random.js';
import { ReliabilityJobType } from './support/reliability-jobs.js';
import { ReliabilityReport } from './support/report.js';
import type { WorkerProcess } from './support/worker-processes.js';

const LEASE_MS = 1_500;
const VISIBILITY_SECONDS = 2;
const WORKERS = 3;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The DynamoDB engine goes away for real: dynalite in a process of its own with its data on disk, SIGKILLed
 * while worker processes claim, complete and a sweeper sweeps, then started again on the same data and port;
 * and a failover to a copy of its data folder taken earlier (copied while the engine was stopped), after
 * which the operator raises the fences. The payment provider, the mailer and SQS are other systems and stay.
 */
describe('the database goes away mid-claim', () => {
  const report = new ReliabilityReport(__filename);
  let fixture: DatabaseFixture;
  let runner: DatabaseJobs;
  let workers: WorkerProcess[] = [];
  let sweeping = false;
  let sweeper: Promise<void> = Promise.resolve();

  beforeEach(async () => {
    fixture = await createDatabaseFixture('rel-db', LEASE_MS);
    runner = new DatabaseJobs(fixture);
    workers = await fixture.pool.start(WORKERS);
    for (const worker of workers) worker.startPolling(fixture.queueUrl, VISIBILITY_SECONDS);
    sweeping = true;
    sweeper = (async () => {
      while (sweeping) {
        await fixture.sweepOnce();
        await sleep(300);
      }
    })();
  });
  afterEach(async () => {
    sweeping = false;
    await sweeper;
    await fixture?.close();
  });
  afterAll(() => report.publish());

  /** Prints what a run found and adds it to the file's reliability figures. */
  function publish(label: string, seed: number, result: Tally): void {
    console.log(`[leasefence reliability] ${label} seed ${seed}: final states ${JSON.stringify(result.states)}`);
    for (const line of result.problems) console.log(`[leasefence reliability] ${label}: ${line}`);
    report.add('lostJobs', result.lost);
    report.add('duplicateEffects', result.duplicates);
    report.add('invariantViolations', result.doubleClaims);
  }

  it(
    'SIGKILL while workers claim, complete and sweep, restarted on the same data: no double claim, no lost row, no acknowledged job without its committed row',
    async () => {
      const seed = runSeed();
      const random = seededRandom(seed);
      const types = [ReliabilityJobType.record, ReliabilityJobType.charge, ReliabilityJobType.mail];
      const jobs = jobsOf(seed, 'restart', budget.databaseJobs, types);
      let claimedAtKills = 0;
      const chaos = async () => {
        for (let kill = 0; kill < budget.databaseKills; kill += 1) {
          await sleep(300 + Math.floor(random() * 900));
          // Mid-claim: the engine dies while at least one job is claimed (bounded wait).
          let claimed = 0;
          await runner.waitForRows(jobs, (rows) => {
            claimed = rows.filter((row) => row?.state === 'claimed').length;
            return claimed > 0;
          });
          await fixture.crash();
          claimedAtKills += claimed;
          report.add('faultsInjected');
          await sleep(200 + Math.floor(random() * 1_200));
          await fixture.recover();
        }
      };

      await Promise.all([runner.produce(jobs, random), chaos()]);
      // Every job was sent, so every job must end with its row: a message acknowledged without a committed row
      // would leave a job that nobody can find again (the sweeper reads rows).
      const rows = await runner.settle(jobs, () => true);
      const result = await runner.tally(jobs, rows, () => true);
      publish('engine restart', seed, result);
      console.log(`[leasefence reliability] engine restart: ${claimedAtKills} jobs were claimed when the engine died`);

      expect(claimedAtKills).toBeGreaterThan(0);
      expect(result).toMatchObject({ lost: 0, duplicates: 0, doubleClaims: 0 });
    },
    budget.testTimeoutMs,
  );

  it(
    'fails over to a copy taken earlier, then raises the fence epoch: no class takes effect twice, no claim runs twice',
    async () => {
      const seed = runSeed();
      const random = seededRandom(seed);
      // Before the copy: every class, and every class D job's intent (its claimed row) is in the copy. A class D
      // job whose intent is newer than the copy cannot be recognised after the failover (see the restore runbook).
      const late = Math.ceil(budget.databaseJobs / 3);
      const before = jobsOf(seed, 'early', budget.databaseJobs - late, [
        ReliabilityJobType.mail,
        ReliabilityJobType.record,
        ReliabilityJobType.charge,
      ]);
      const after = jobsOf(seed, 'late', late, [ReliabilityJobType.record, ReliabilityJobType.charge]);
      const all = [...before, ...after];
      // Long jobs sent quickly: the copy is taken while jobs are claimed, and their effects land after it.
      await runner.produce(before, random, { gapMs: 60, workMs: [800, 2_500] });
      const mails = before.filter((job) => job.jobType === ReliabilityJobType.mail);
      await runner.waitForRows(mails, (rows) => rows.every((row) => row !== undefined));
      await runner.waitForRows(before, (rows) => rows.some((row) => row?.state === 'claimed'));
      const copy = await fixture.snapshot();
      report.add('faultsInjected');
      await runner.produce(after, random);
      await sleep(1_000 + Math.floor(random() * 1_500));

      // The runbook: stop the workers, swap the database, raise the fences, start the workers again.
      for (const worker of workers) worker.pause();
      await fixture.crash();
      await fixture.recover(copy);
      report.add('faultsInjected');
      const atCopy: Record<string, number> = {};
      const restored = new Set<string>();
      for (const job of all) {
        const row = await fixture.row(job.identity);
        if (!row) continue;
        restored.add(job.identity.operationId);
        atCopy[row.state] = (atCopy[row.state] ?? 0) + 1;
      }
      const raised = await fixture.raiseFenceEpoch('failed over to the copy');
      for (const worker of workers) worker.resume();
      console.log(
        `[leasefence reliability] failover seed ${seed}: rows in the copy ${JSON.stringify(atCopy)}; fence epoch ${raised.epoch} above floor ${raised.floor}`,
      );
      console.log(
        '[leasefence reliability] failover: class A not run here (dynalite has no TransactWriteItems); the restore drill with class A runs in the moto lane (test/integration/admin/raise-fences.test.ts)',
      );

      const mustSettle = (job: SentJob) => restored.has(job.identity.operationId);
      const rows = await runner.settle(all, mustSettle);
      const result = await runner.tally(all, rows, mustSettle);
      publish('failover', seed, result);

      // The fault was exercised: the copy holds jobs that were still running, which run again after the failover.
      expect((atCopy.claimed ?? 0) + (atCopy.queued ?? 0)).toBeGreaterThan(0);
      expect(mails.every((job) => restored.has(job.identity.operationId))).toBe(true);
      expect(raised.epoch).toBe(1);
      expect(raised.raised).toBe(raised.scanned);
      expect(raised.scanned).toBeGreaterThanOrEqual(restored.size);
      expect(result).toMatchObject({ lost: 0, duplicates: 0, doubleClaims: 0 });
    },
    budget.testTimeoutMs,
  );
});
