import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { defineJob } from '../../../lib/job-definition.js';
import { createScheduleTickHandler } from '../../../lib/lambda/schedule-tick-handler.js';
import { defineSchedule, enqueueOccurrence, occurrenceAt } from '../../../lib/messaging/schedule.js';
import { scheduleStatus } from '../../../lib/messaging/schedule-status.js';
import { tickSchedule } from '../../../lib/messaging/schedule-tick.js';
import { WorkState } from '../../../lib/states.js';
import { expectState } from '../../support/expectations.js';
import { scheduleProducer, scheduleTickDeps, scheduleTickHandler } from '../../support/schedule-fixture.js';
import { createWorkerHarness, type WorkerHarness } from '../../support/worker-harness.js';

const HOUR = 60 * 60_000;
const runs: string[] = [];
const report = defineJob({
  type: 'daily-report',
  version: 1,
  target: 'B',
  maxAttempts: 4,
  payload: z.strictObject({ kind: z.string() }),
  run: async (ctx) => {
    runs.push(ctx.identity.operationId);
    return { outcomeCode: 'reported' };
  },
});

const hourly = defineSchedule({
  name: 'hourly-report',
  jobType: 'daily-report',
  tenantId: 'acme',
  payload: { kind: 'usage' },
  expression: 'rate(1 hour)',
});

describe('schedules: one job per tick, a duplicate or late tick is a replay', () => {
  let harness: WorkerHarness;
  beforeAll(async () => {
    harness = await createWorkerHarness('schedules', [report]);
  });
  afterAll(async () => {
    await harness.close();
  });

  const producer = () => scheduleProducer(harness, [report]);
  const tickDeps = (schedules = [hourly]) => scheduleTickDeps(harness, schedules);

  it('a duplicate and a late delivery of the same tick are one job; the next interval is another', async () => {
    const tick = Date.UTC(2026, 11, 1, 9, 0, 0);
    const first = await enqueueOccurrence(producer(), hourly, tick);
    const duplicate = await enqueueOccurrence(producer(), hourly, tick);
    const late = await enqueueOccurrence(producer(), hourly, tick + 42 * 60_000);
    const next = await enqueueOccurrence(producer(), hourly, tick + HOUR);

    expect(first).toMatchObject({ outcome: 'created', wake: 'sent' });
    expect(duplicate.outcome).toBe('replay');
    expect(late.outcome).toBe('replay');
    expect(late.identity).toEqual(first.identity);
    expect(first.identity.operationId).toBe('schedule/hourly-report/2026-12-01T09:00:00.000Z');
    expect(next).toMatchObject({ outcome: 'created' });
    expect(next.identity.operationId).toBe('schedule/hourly-report/2026-12-01T10:00:00.000Z');
    await harness.poll(harness.worker());
    await expectState(harness.store, first.identity, WorkState.succeeded);
    expect(runs.filter((id) => id === first.identity.operationId)).toHaveLength(1);
    expect(runs.filter((id) => id === next.identity.operationId)).toHaveLength(1);
    // The job definition's attempt budget wins over the schedule's default when the producer has it.
    expect((await harness.store.get(first.identity))?.maxAttempts).toBe(4);
  });

  it('eight concurrent deliveries of one tick through the Lambda handler create one row and send one wake-up', async () => {
    const scheduledAt = Date.UTC(2026, 11, 2, 9, 0, 0);
    harness.clock.set(scheduledAt + 1000);
    const handler = scheduleTickHandler(harness, [hourly]);
    const event = { schedule: 'hourly-report', scheduledTime: new Date(scheduledAt).toISOString() };
    const before = await harness.queueDepth();
    const outcomes = await Promise.all(Array.from({ length: 8 }, () => handler(event)));

    expect(outcomes.filter((outcome) => outcome.outcome === 'created')).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome.outcome === 'replay')).toHaveLength(7);
    const after = await harness.queueDepth();
    expect(after.visible + after.inFlight - (before.visible + before.inFlight)).toBe(1);
    // No job definition in the tick function: the row carries the schedule's attempt budget (default 3).
    const occurrence = occurrenceAt(hourly, scheduledAt);
    expect((await harness.store.get(occurrence?.identity ?? ({} as never)))?.maxAttempts).toBe(3);
  });

  it('refuses an unknown schedule, a tick ahead of the clock and malformed input, writing nothing', async () => {
    const now = Date.UTC(2026, 11, 3, 9, 30, 0);
    harness.clock.set(now);
    const ahead = now + 2 * HOUR;
    expect(await tickSchedule(tickDeps(), 'no-such-schedule', now)).toEqual({
      outcome: 'refused',
      reason: 'unknown_schedule',
    });
    expect(await tickSchedule(tickDeps(), 'hourly-report', ahead)).toEqual({
      outcome: 'refused',
      reason: 'ahead_of_clock',
    });
    const aheadOccurrence = occurrenceAt(hourly, ahead);
    expect(await harness.store.get(aheadOccurrence?.identity ?? ({} as never))).toBeUndefined();
    const handler = createScheduleTickHandler({
      config: { jobsTable: 'x', payloadsTable: 'y', queueUrl: harness.queueUrl } as never,
      schedules: [hourly],
      clock: harness.clock,
    });
    expect(await handler({ schedule: 'hourly-report', scheduledTime: 'yesterday' })).toEqual({
      outcome: 'refused',
      reason: 'invalid_tick',
    });
  });

  it('counts the recent ticks with no job as missed once they are past the retry window', async () => {
    const daily = defineSchedule({
      name: 'daily-digest',
      jobType: 'daily-report',
      tenantId: 'acme',
      payload: { kind: 'digest' },
      expression: 'cron(0 6 * * ? *)',
      timeZone: 'Europe/Berlin',
    });
    const day = 24 * HOUR;
    // 06:00 Berlin is 05:00 UTC in December. Ticks on the 10th and the 13th ran; the 11th and 12th did not.
    const tenth = Date.UTC(2026, 11, 10, 5, 0, 0);
    harness.clock.set(tenth + 60_000);
    expect(await tickSchedule(tickDeps([daily]), 'daily-digest', tenth)).toMatchObject({
      outcome: 'created',
      missed: 0,
    });
    harness.clock.set(tenth + 3 * day + 60_000);
    const resumed = await tickSchedule(tickDeps([daily]), 'daily-digest', tenth + 3 * day);
    expect(resumed).toMatchObject({ outcome: 'created', missed: 2, scheduledAt: '2026-12-13T05:00:00.000Z' });

    const status = await scheduleStatus(daily, harness.clock.now(), (identity) => harness.store.get(identity));
    expect(status.verdict).toBe('missed');
    expect(status.lastRun?.scheduledAt).toBe(tenth + 3 * day);
    // the 13th is inside the retry window; the default look-back judges the 5 ticks before it
    expect(status.ticks.map((tick) => tick.status)).toEqual([
      'ran',
      'missed',
      'missed',
      'ran',
      'not_evaluated',
      'not_evaluated',
    ]);
    expect(new Date(status.next ?? 0).toISOString()).toBe('2026-12-14T05:00:00.000Z');
  });

  it('a declared start makes every tick since it judgeable; a fresh tick without a job is pending', async () => {
    const since = Date.UTC(2026, 11, 20, 0, 0, 0);
    const quarter = defineSchedule({
      name: 'quarter-hour',
      jobType: 'daily-report',
      tenantId: 'acme',
      payload: { kind: 'q' },
      expression: 'rate(15 minutes)',
      start: new Date(since).toISOString(),
    });
    harness.clock.set(since + 50 * 60_000);
    const status = await scheduleStatus(quarter, harness.clock.now(), (identity) => harness.store.get(identity));
    // Ticks at :45 (5 min ago: pending), :30 and :15 and :00 (missed); none before the start.
    expect(status.ticks.map((tick) => tick.status)).toEqual(['pending', 'missed', 'missed', 'missed']);
    expect(status.verdict).toBe('missed');
    expect(status.lastRun).toBeUndefined();
  });
});
