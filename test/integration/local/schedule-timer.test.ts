import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { ScheduleTimer } from '../../../infra/local/schedule-timer.js';
import { parseIdentity } from '../../../lib/identity.js';
import { defineJob } from '../../../lib/job-definition.js';
import { defineSchedules } from '../../../lib/messaging/schedule.js';
import { scheduleStatus } from '../../../lib/messaging/schedule-status.js';
import { scheduleTickDeps, scheduleTickHandler } from '../../support/schedule-fixture.js';
import { createWorkerHarness, type WorkerHarness } from '../../support/worker-harness.js';

const MINUTE = 60_000;
const ping = defineJob({
  type: 'ping',
  version: 1,
  target: 'B',
  maxAttempts: 2,
  payload: z.strictObject({}),
  run: async () => ({ outcomeCode: 'pong' }),
});
const schedules = defineSchedules([
  { name: 'every-5', jobType: 'ping', tenantId: 'local', payload: {}, expression: 'rate(5 minutes)' },
  {
    name: 'top-of-hour',
    jobType: 'ping',
    tenantId: 'local',
    payload: {},
    expression: 'cron(0 * * * ? *)',
    timeZone: 'Asia/Kolkata',
  },
]);

describe('local stack schedules: ticks fired at their times through the tick code path, driven by the clock', () => {
  let harness: WorkerHarness;
  beforeAll(async () => {
    harness = await createWorkerHarness('schedule-timer', [ping]);
  });
  afterAll(async () => {
    await harness.close();
  });

  const timer = () => new ScheduleTimer({ deps: scheduleTickDeps(harness, schedules, [ping]) });
  const created = (fired: Awaited<ReturnType<ScheduleTimer['fireDue']>>, name: string) =>
    fired.filter((entry) => entry.name === name && entry.outcome.outcome === 'created').length;

  it('fires nothing before a tick is due, then each due tick once; a second timer (or stack) only replays', async () => {
    harness.clock.set(Date.UTC(2026, 11, 1, 9, 1, 0));
    const local = timer();
    expect(await local.fireDue()).toEqual([]);
    harness.clock.advance(4 * MINUTE); // 09:05: the 5-minute tick
    expect(created(await local.fireDue(), 'every-5')).toBe(1);
    expect(await local.fireDue()).toEqual([]);
    harness.clock.advance(10 * MINUTE); // 09:15: ticks at :10 and :15, both within the 15-minute window
    expect(created(await local.fireDue(), 'every-5')).toBe(2);
    harness.clock.advance(15 * MINUTE); // 09:30: ticks at :20, :25, :30; 09:30 UTC is 15:00 in Kolkata
    const fired = await local.fireDue();
    expect(created(fired, 'every-5')).toBe(3);
    expect(created(fired, 'top-of-hour')).toBe(1);
    const identity = parseIdentity({ tenantId: 'local', operationId: 'schedule/top-of-hour/2026-12-01T09:30:00.000Z' });
    // The local stack has the job definitions: the row carries the definition's attempt budget.
    expect(await harness.store.get(identity)).toMatchObject({ state: 'queued', maxAttempts: 2 });

    // A second stack started at 09:00 sees the same ticks: all replays, no new job.
    harness.clock.set(Date.UTC(2026, 11, 1, 9, 0, 30));
    const other = timer();
    harness.clock.set(Date.UTC(2026, 11, 1, 9, 30, 0));
    const again = await other.fireDue();
    expect(again.length).toBeGreaterThan(0);
    expect(again.every((entry) => entry.outcome.outcome === 'replay')).toBe(true);
  });

  it('the local timer and the Lambda tick are one code path: a tick through both is one job', async () => {
    harness.clock.set(Date.UTC(2026, 11, 2, 0, 1, 0));
    const local = timer();
    harness.clock.set(Date.UTC(2026, 11, 2, 0, 5, 1));
    const lambda = scheduleTickHandler(harness, schedules);
    const [fromLambda, fromTimer] = await Promise.all([
      lambda({ schedule: 'every-5', scheduledTime: '2026-12-02T00:05:00Z' }),
      local.fireDue(),
    ]);
    const outcomes = [fromLambda.outcome, ...fromTimer.map((entry) => entry.outcome.outcome)];
    expect(outcomes.sort()).toEqual(['created', 'replay']);
  });

  it('a process asleep past the retry window drops those ticks, as the Scheduler does: they show as missed', async () => {
    harness.clock.set(Date.UTC(2026, 11, 3, 11, 58, 0));
    const local = timer();
    harness.clock.set(Date.UTC(2026, 11, 3, 12, 0, 0));
    expect(created(await local.fireDue(), 'every-5')).toBe(1);
    harness.clock.set(Date.UTC(2026, 11, 3, 12, 40, 0)); // slept through 12:05 ... 12:40; 15 minutes is the window
    const fired = await local.fireDue();
    const firedTimes = fired
      .filter((entry) => entry.name === 'every-5')
      .map((entry) => (entry.outcome.outcome === 'refused' ? '' : entry.outcome.scheduledAt));
    // 12:25 is exactly 15 minutes late: still within the window (at most TICK_MAX_AGE_SECONDS late is delivered).
    expect(firedTimes).toEqual([
      '2026-12-03T12:25:00.000Z',
      '2026-12-03T12:30:00.000Z',
      '2026-12-03T12:35:00.000Z',
      '2026-12-03T12:40:00.000Z',
    ]);
    const status = await scheduleStatus(
      schedules[0] as never,
      harness.clock.now(),
      (identity) => harness.store.get(identity),
      7, // the ticks inside the 15-minute window (12:40 ... 12:30), then 7 older ones
    );
    expect(status.ticks.map((tick) => [new Date(tick.scheduledAt).toISOString().slice(11, 16), tick.status])).toEqual([
      ['12:40', 'ran'],
      ['12:35', 'ran'],
      ['12:30', 'ran'],
      ['12:25', 'ran'],
      ['12:20', 'missed'],
      ['12:15', 'missed'],
      ['12:10', 'missed'],
      ['12:05', 'missed'],
      ['12:00', 'ran'],
      ['11:55', 'not_evaluated'],
    ]);
  });
});
