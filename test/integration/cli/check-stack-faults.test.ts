import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../infra/cli/main.js';
import { examplePath, loadJobsModule } from '../../../infra/local/jobs-module.js';
import type { RunningLocalStack } from '../../../infra/local/stack.js';
import { systemClock } from '../../../lib/clock.js';
import { parseIdentity } from '../../../lib/identity.js';
import { sendJob } from '../../../lib/messaging/producer.js';
import { PayloadStore } from '../../../lib/store/index.js';
import { startStateFileStack, stopStateFileStack, type TempLocalDir } from '../../support/quiet-stack.js';
import { captureIo } from '../../unit/cli/io.js';
import type { StackCheckReport } from './stack-check-report.js';

const FIXTURE = 'test/integration/cli/fixtures/fault-check-module.ts';

/**
 * `check --stack local` against a local stack started with fault injection on (as `npm start -- --fault-injection`,
 * the local form of the construct's faultInjection prop): the faults run inside the stack's own worker, for the
 * check's tenants only, and all nine controls are judged from what that worker did.
 */
describe('leasefence check --stack with the stack fault injection on', () => {
  let stack: RunningLocalStack;
  let local: TempLocalDir;

  beforeAll(async () => {
    ({ stack, local } = await startStateFileStack({
      // One poller per concurrent Lambda invocation: the paused one must not hold up the takeover's delivery.
      pollers: 4,
      jobs: await loadJobsModule(FIXTURE),
      faultInjection: true,
    }));
  });
  afterAll(async () => {
    await stopStateFileStack(stack, local);
  });

  it('GO for the fenced job, NO-GO for the unfenced one; a real tenant sent meanwhile is untouched; every row cleaned up', async () => {
    // Prepare: a real tenant's job, sent while the check runs, must run as if no check were running.
    const io = captureIo();
    const definitions = stack.jobs.definitions;
    const fenced = definitions.find((job) => job.type === 'fenced-credit');
    if (!fenced) throw new Error('fixture without fenced-credit');
    const real = { tenantId: 'acme', operationId: 'real-op-1' };

    // Act
    const running = main(
      ['check', '--stack', 'local', '--local-dir', local.dir, '--settle-timeout', '90s', '--json'],
      io,
    );
    await new Promise((done) => setTimeout(done, 2_000));
    await sendJob(
      {
        sqs: stack.sqs,
        queueUrl: stack.state.queues.jobs,
        payloads: new PayloadStore(stack.client, stack.state.tables.payloads, systemClock),
      },
      { ...real, jobType: fenced.type, jobVersion: fenced.version, payload: { accountId: 'a-1', amount: 5 } },
    );
    const code = await running;

    // Assert
    const parsed = JSON.parse(io.stdout()) as {
      passed: boolean;
      jobTypes: StackCheckReport[];
      cleanup: Record<string, number>;
    };
    const byType = Object.fromEntries(parsed.jobTypes.map((report) => [report.jobType, report]));
    const fencedReport = byType['fenced-credit'];
    console.log(
      JSON.stringify(
        fencedReport?.controls.filter((c) => c.status !== 'PASS'),
        null,
        1,
      ),
      JSON.stringify(fencedReport?.scenarios.filter((s) => s.id === 'stale-resume')),
    );
    const unfencedReport = byType['unfenced-credit'];
    expect(fencedReport?.controls.map((control) => `${control.id} ${control.status}`)).toEqual(
      Array.from({ length: 9 }, (_, index) => `${index + 1} PASS`),
    );
    expect(fencedReport?.verdict).toBe('GO');
    expect(unfencedReport?.verdict).toBe('NO-GO');
    expect(unfencedReport?.controls.find((control) => control.id === 4)?.status).toBe('FAIL');
    expect(unfencedReport?.controls.find((control) => control.id === 4)?.evidence).toContain(
      'PutItem on lf-case-ledger',
    );
    expect(code).toBe(1);
    expect(parsed.cleanup.rowsAfter).toBe(0);
    const realRow = await stack.store.get(parseIdentity(real), { consistent: true });
    expect(realRow?.state).toBe('succeeded');
    expect(realRow?.attempts).toBe(1);
    const all =
      (await stack.client.send(new ScanCommand({ TableName: stack.state.tables.jobs, ConsistentRead: true }))).Items ??
      [];
    expect(all.filter((row) => String(row.pk).startsWith('lfcheck-'))).toEqual([]);
    expect(all.filter((row) => String(row.sk).startsWith('check#'))).toEqual([]);
  }, 600_000);
});

/**
 * The example jobs (no --jobs) through a local stack with fault injection on. The class C refund's simulated gateway
 * writes its refund with a plain PutItem into the examples table: that is the provider's effect (its own storage is
 * the external system), counted at the provider as the in-process check counts it, not an unfenced write of the job
 * (control 4); and control 5 is judged from the provider's effect calls seen inside the stack's worker (one effect
 * per operation over all its attempts, the crash recovery reconciling instead of calling again).
 */
describe('leasefence check --stack on the example jobs with the stack fault injection on', () => {
  let stack: RunningLocalStack;
  let local: TempLocalDir;

  beforeAll(async () => {
    ({ stack, local } = await startStateFileStack({
      pollers: 4,
      jobs: await loadJobsModule(examplePath('jobs/module')),
      faultInjection: true,
      // The sweeper re-signals the crashed attempt's expired claim, as the deployed one does: with a 30 s lease the
      // queue's redelivery (its 30 s visibility timeout) can come while the claim still holds. That wake-up must run
      // unfaulted (the fault is armed for the job message's first receipt only), or the recovery crashes too.
      sweepIntervalMs: 5_000,
    }));
  });
  afterAll(async () => {
    await stopStateFileStack(stack, local);
  });

  it('GO for the class C refund (controls 4 and 5 PASS) and the class B statement; every row cleaned up', async () => {
    // Act
    const io = captureIo();
    const code = await main(
      ['check', '--stack', 'local', '--local-dir', local.dir, '--settle-timeout', '90s', '--json'],
      io,
    );

    // Assert
    const parsed = JSON.parse(io.stdout()) as { jobTypes: StackCheckReport[]; cleanup: Record<string, number> };
    const byType = Object.fromEntries(parsed.jobTypes.map((report) => [report.jobType, report]));
    const open = parsed.jobTypes.flatMap((report) =>
      report.controls
        .filter((control) => control.status !== 'PASS')
        .map((control) => `${report.jobType} ${control.id} ${control.status}: ${control.evidence}`),
    );
    const refund = byType['refund-settlement'];
    expect(
      refund?.controls.map((control) => `${control.id} ${control.status}`),
      open.join('\n'),
    ).toEqual(Array.from({ length: 9 }, (_, index) => `${index + 1} PASS`));
    expect(refund?.controls.find((control) => control.id === 5)?.evidence).toMatch(
      /effects counted by distinct idempotency key per operation .*: [1-9]\d* effect call\(s\) seen inside the stack's worker/,
    );
    expect(refund?.verdict).toBe('GO');
    expect(byType['statement-publication']?.verdict, open.join('\n')).toBe('GO');
    // Class A needs TransactWriteItems, which the local stack's dynalite lacks: not evaluated, never GO.
    expect(byType['inventory-reservation']?.verdict).toBe('NOT EVALUATED');
    expect(code).toBe(1);
    expect(parsed.cleanup.rowsAfter).toBe(0);
  }, 600_000);
});
