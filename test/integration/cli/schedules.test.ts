import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../infra/cli/main.js';
import { ManualClock } from '../../../lib/clock.js';
import { defineSchedules } from '../../../lib/messaging/schedule.js';
import { tickSchedule } from '../../../lib/messaging/schedule-tick.js';
import { ROOT } from '../../support/cli-runner.js';
import { engineTargetFlags } from '../../support/cli-target.js';
import { createWorkerHarness, type WorkerHarness } from '../../support/worker-harness.js';
import { captureIo } from '../../unit/cli/io.js';
import { schedules as minuteDeclared } from './fixtures/minute-module.js';
import { schedules as declared, jobs } from './fixtures/scheduled-module.js';

const MODULE = join(ROOT, 'test/integration/cli/fixtures/scheduled-module.ts');
const MINUTE_MODULE = join(ROOT, 'test/integration/cli/fixtures/minute-module.ts');
const MINUTE = 60_000;
const HOUR = 3_600_000;
const schedules = defineSchedules([...declared, ...minuteDeclared]);

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
  const cli = async (now: number, extra: string[] = [], module = MODULE) => {
    const io = captureIo(now);
    const target = engineTargetFlags({ ...harness.tables, queueUrl: harness.queueUrl, deadlineShards: 32 });
    const code = await main(['schedules', '--jobs', module, ...target, ...extra], io);
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
      // Three ticks since the declared start: the 4th (ran), the 3rd (missed), the 2nd (ran). Hourly: the 12:00
      // tick inside the retry window, then three judged ones.
      ['nightly', 'missed', 3],
      ['hourly', 'not_evaluated', 4],
    ]);
  });

  it('exits 0 once every recent tick has its job (a late tick filled the gap: a replay of nothing, one job)', async () => {
    const late = await tick('nightly', Date.UTC(2026, 11, 3, 1, 10, 0));
    expect(late).toMatchObject({ outcome: 'created', scheduledAt: '2026-12-03T01:00:00.000Z' });
    const now = Date.UTC(2026, 11, 4, 12, 0, 0);
    for (let hour = 0; hour < 6; hour += 1) await tick('hourly', now - hour * HOUR);
    const json = await cli(now, ['--json']);
    const parsed = JSON.parse(json.stdout) as { schedules: Array<{ name: string; verdict: string }> };
    expect(parsed.schedules.map((status) => [status.name, status.verdict])).toEqual([
      ['nightly', 'ok'],
      ['hourly', 'ok'],
    ]);
    expect(json.code).toBe(0);
  });

  it('a one-minute schedule with missed ticks: the tick and the CLI count the same misses by the default look-back', async () => {
    // prepare: five ticks ran from the declared start, then none for 25 minutes (the Scheduler was down)
    const start = Date.UTC(2026, 11, 10, 9, 0, 0);
    for (let minute = 0; minute < 5; minute += 1) await tick('minutely', start + minute * MINUTE);
    const now = start + 30 * MINUTE;

    // act: the next tick arrives, and an operator asks
    const arrived = await tick('minutely', now);
    const report = await cli(now + 1000, ['--json'], MINUTE_MODULE);

    // assert: ticks 5–15 minutes after start are past the 15-minute retry window with no job; the default look-back
    // judges the 5 newest of them, and the tick's log, the CLI's verdict and its exit code all say so
    const parsed = JSON.parse(report.stdout) as {
      schedules: Array<{ name: string; verdict: string; ticks: Array<{ status: string }> }>;
    };
    const minutely = parsed.schedules.find((status) => status.name === 'minutely');
    const missedByCli = minutely?.ticks.filter((entry) => entry.status === 'missed').length;
    expect(minutely?.verdict).toBe('missed');
    expect(missedByCli).toBe(5);
    expect(arrived).toMatchObject({ outcome: 'created', missed: missedByCli });
    expect(report.code).toBe(1);
  });

  it('needs a jobs module when not on the local stack', async () => {
    const io = captureIo();
    const target = engineTargetFlags({
      jobsTable: 't',
      payloadsTable: 'p',
      queueUrl: harness.queueUrl,
      deadlineShards: 32,
    });
    expect(await main(['schedules', ...target], io)).toBe(2);
    expect(io.stderr()).toMatch(/--jobs/);
  });
});
