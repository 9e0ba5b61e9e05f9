import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../infra/cli/main.js';
import { ManualClock } from '../../../lib/clock.js';
import { defineSchedules } from '../../../lib/messaging/schedule.js';
import { tickSchedule } from '../../../lib/messaging/schedule-tick.js';
import { ROOT } from '../../support/cli-runner.js';
import { engineEndpoints } from '../../support/engine.js';
import { createWorkerHarness, type WorkerHarness } from '../../support/worker-harness.js';
import { captureIo } from '../../unit/cli/io.js';
import { schedules as declared, jobs } from './fixtures/scheduled-module.js';

const MODULE = join(ROOT, 'test/integration/cli/fixtures/scheduled-module.ts');
const HOUR = 3_600_000;
const schedules = defineSchedules(declared);

describe('leasefence schedules: next tick, last run and missed ticks from the occurrence rows', () => {
  let harness: WorkerHarness;
  beforeAll(async () => {
    harness = await createWorkerHarness('cli-schedules', jobs);
  });
  afterAll(async () => {
    await harness.close();
  });

  const tick = async (name: string, at: number) => {
    const clock = new ManualClock(at + 1000);
    const producer = {
      sqs: harness.sqs,
      queueUrl: harness.queueUrl,
      payloads: harness.payloads,
      delayed: { client: harness.client, jobsTable: harness.tables.jobsTable, jobs: [], clock },
    };
    return tickSchedule({ producer, store: harness.store, schedules, clock }, name, at);
  };
  const cli = async (now: number, extra: string[] = []) => {
    const io = captureIo(now);
    const { dynamo, sqs } = engineEndpoints();
    const code = await main(
      [
        'schedules',
        '--jobs',
        MODULE,
        '--jobs-table',
        harness.tables.jobsTable,
        '--payloads-table',
        harness.tables.payloadsTable,
        '--queue-url',
        harness.queueUrl,
        '--deadline-shards',
        '32',
        '--dynamodb-endpoint',
        dynamo,
        '--sqs-endpoint',
        sqs,
        ...extra,
      ],
      io,
    );
    return { code, stdout: io.stdout(), stderr: io.stderr() };
  };

  it('reports the missed nightly tick (exit 1), the last run, the next tick; the hourly schedule NOT EVALUATED', async () => {
    // 02:00 Berlin = 01:00 UTC in December. Ticks of the 2nd and the 4th ran; the 3rd's never arrived.
    await tick('nightly', Date.UTC(2026, 11, 2, 1, 0, 0));
    await tick('nightly', Date.UTC(2026, 11, 4, 1, 0, 0));
    const now = Date.UTC(2026, 11, 4, 12, 0, 0);
    const text = await cli(now);
    expect(text.stderr).toBe('');
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/nightly\s+cron\(0 2 \* \* \? \*\) Europe\/Berlin\s+2026-12-05T01:00:00.000Z/);
    expect(text.stdout).toMatch(/2026-12-04T01:00:00.000Z \(11h ago\)\s+queued\s+MISSED 1/);
    expect(text.stdout).toContain('nightly 2026-12-03T01:00:00.000Z: missed: no job');
    expect(text.stdout).toMatch(/hourly\s+rate\(1 hour\) UTC .*NOT EVALUATED/);

    const json = await cli(now, ['--json', '--lookback', '3']);
    const parsed = JSON.parse(json.stdout) as { schedules: Array<{ name: string; verdict: string; ticks: unknown[] }> };
    expect(parsed.schedules.map((status) => [status.name, status.verdict, status.ticks.length])).toEqual([
      // Three ticks since the declared start: the 4th (ran), the 3rd (missed), the 2nd (ran).
      ['nightly', 'missed', 3],
      ['hourly', 'not_evaluated', 3],
    ]);
  });

  it('exits 0 once every recent tick has its job (a late tick filled the gap: a replay of nothing, one job)', async () => {
    const late = await tick('nightly', Date.UTC(2026, 11, 3, 1, 10, 0));
    expect(late).toMatchObject({ outcome: 'created', scheduledAt: '2026-12-03T01:00:00.000Z' });
    const now = Date.UTC(2026, 11, 4, 12, 0, 0);
    for (let hour = 0; hour < 5; hour += 1) await tick('hourly', now - hour * HOUR);
    const json = await cli(now, ['--json']);
    const parsed = JSON.parse(json.stdout) as { schedules: Array<{ name: string; verdict: string }> };
    expect(parsed.schedules.map((status) => [status.name, status.verdict])).toEqual([
      ['nightly', 'ok'],
      ['hourly', 'ok'],
    ]);
    expect(json.code).toBe(0);
  });

  it('needs a jobs module when not on the local stack', async () => {
    const io = captureIo();
    const { dynamo, sqs } = engineEndpoints();
    const target = ['--jobs-table', 't', '--payloads-table', 'p', '--queue-url', harness.queueUrl];
    const engines = ['--deadline-shards', '32', '--dynamodb-endpoint', dynamo, '--sqs-endpoint', sqs];
    expect(await main(['schedules', ...target, ...engines], io)).toBe(2);
    expect(io.stderr()).toMatch(/--jobs/);
  });
});
