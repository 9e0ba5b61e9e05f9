import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { defineJob } from '../../../lib/job-definition.js';
import { defineSchedule, enqueueOccurrence, occurrenceAt } from '../../../lib/messaging/schedule.js';
import { WorkState } from '../../../lib/states.js';
import { expectState } from '../../support/expectations.js';
import { createWorkerHarness, type WorkerHarness } from '../../support/worker-harness.js';

const runs: string[] = [];
const report = defineJob({
  type: 'daily-report',
  version: 1,
  target: 'B',
  payload: z.strictObject({ kind: z.string() }),
  run: async (ctx) => {
    runs.push(ctx.identity.operationId);
    return { outcomeCode: 'reported' };
  },
});

const schedule = defineSchedule({
  name: 'hourly-report',
  jobType: 'daily-report',
  tenantId: 'acme',
  payload: { kind: 'usage' },
  rateMinutes: 60,
});

describe('schedules: one job per interval, a duplicate tick is a replay', () => {
  let harness: WorkerHarness;
  beforeAll(async () => {
    harness = await createWorkerHarness('schedules', [report]);
  });
  afterAll(async () => {
    await harness.close();
  });

  const deps = () => ({
    sqs: harness.sqs,
    queueUrl: harness.queueUrl,
    payloads: harness.payloads,
    delayed: { client: harness.client, jobsTable: harness.tables.jobsTable, jobs: [report], clock: harness.clock },
  });

  it('a duplicate and a late delivery of the same tick are one job; the next interval is another', async () => {
    const tick = Date.UTC(2026, 11, 1, 9, 0, 0);

    const first = await enqueueOccurrence(deps(), schedule, tick);
    const duplicate = await enqueueOccurrence(deps(), schedule, tick);
    const late = await enqueueOccurrence(deps(), schedule, tick + 42 * 60_000);
    const next = await enqueueOccurrence(deps(), schedule, tick + 60 * 60_000);

    expect(first).toMatchObject({ outcome: 'created', wake: 'sent' });
    expect(duplicate.outcome).toBe('replay');
    expect(late.outcome).toBe('replay');
    expect(late.identity).toEqual(first.identity);
    expect(first.identity.operationId).toBe('schedule/hourly-report/2026-12-01T09:00:00.000Z');
    expect(next).toMatchObject({ outcome: 'created' });
    expect(next.identity.operationId).toBe('schedule/hourly-report/2026-12-01T10:00:00.000Z');
    await harness.poll(harness.worker());
    await expectState(harness.store, first.identity, WorkState.succeeded);
    expect(runs.sort()).toEqual([first.identity.operationId, next.identity.operationId]);
  });

  it('derives the occurrence from the interval, not from the delivery time', () => {
    const start = Date.UTC(2026, 0, 1, 0, 0, 0);
    expect(occurrenceAt(schedule, start + 59 * 60_000).intervalStart).toBe(start);
    expect(occurrenceAt(schedule, start + 60 * 60_000).intervalStart).toBe(start + 60 * 60_000);
  });
});
