import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { cancelItem } from '../../../lib/admin/cancel.js';
import { FenceRejectedError, OwnershipLostError } from '../../../lib/errors.js';
import { parseIdentity } from '../../../lib/identity.js';
import { defineJob, type JobContext } from '../../../lib/job-definition.js';
import { waitUntil } from '../../support/fake-external.js';
import { createUserTable, type UserTable } from '../../support/user-tables.js';
import { createWorkerHarness, type WorkerHarness } from '../../support/worker-harness.js';

/** What the job saw after the cancel, and where it paused until the test had cancelled it. */
interface Observation {
  reached: boolean;
  abortedAfterStep?: boolean;
  stepError?: unknown;
  writeError?: unknown;
}

let records: UserTable;
let observed: Observation = { reached: false };
let release: () => void = () => undefined;

function pauseUntilReleased(): Promise<void> {
  observed.reached = true;
  return new Promise((resolve) => {
    release = resolve;
  });
}

const refOf = (identity: { tenantId: string; operationId: string }) => ({
  tableName: records.tableName,
  key: { id: `${identity.tenantId}/${identity.operationId}` },
});

/** After the pause: a step, then a record write (both must be refused once the job is cancelled). */
async function stepThenWrite(ctx: JobContext<unknown>): Promise<void> {
  try {
    await ctx.step('after-pause', async () => 'done');
  } catch (error) {
    observed.stepError = error;
  }
  observed.abortedAfterStep = ctx.signal.aborted;
  try {
    await ctx.records.writeInSequence(refOf(ctx.identity), 2, { set: { status: 'late' } });
  } catch (error) {
    observed.writeError = error;
  }
}

const undeclared = defineJob({
  type: 'undeclared',
  version: 1,
  target: 'B',
  payload: z.strictObject({}),
  run: async (ctx) => {
    await ctx.records.writeInSequence(refOf(ctx.identity), 1, { set: { status: 'started' } });
    await pauseUntilReleased();
    await stepThenWrite(ctx);
    return { outcomeCode: 'done' };
  },
});

const declared = defineJob({
  type: 'declared',
  version: 1,
  target: 'B',
  payload: z.strictObject({ writeFirst: z.boolean().optional() }),
  ownedRecords: (identity) => [refOf(identity)],
  run: async (ctx) => {
    if (ctx.payload.writeFirst !== false) {
      await ctx.records.writeInSequence(refOf(ctx.identity), 1, { set: { status: 'started' } });
    }
    await pauseUntilReleased();
    try {
      await ctx.records.writeInSequence(refOf(ctx.identity), 2, { set: { status: 'late' } });
    } catch (error) {
      observed.writeError = error;
    }
    observed.abortedAfterStep = ctx.signal.aborted;
    return { outcomeCode: 'done' };
  },
});

describe('durable cancellation', () => {
  let harness: WorkerHarness;
  beforeAll(async () => {
    records = await createUserTable('cancel-records', { partition: 'id' });
    harness = await createWorkerHarness('cancel', [undeclared, declared]);
  });
  afterAll(async () => {
    await harness.close();
    await records.drop();
  });

  async function runAndCancel(operationId: string, jobType: string, payload: Record<string, unknown> = {}) {
    observed = { reached: false };
    const identity = parseIdentity({ tenantId: 'acme', operationId });
    await harness.send({ ...identity, jobType, payload });
    const worker = harness.worker();
    const done = harness.poll(worker);
    expect(await waitUntil(() => observed.reached)).toBe(true);
    const cancelled = await cancelItem(
      { store: harness.store, sqs: harness.sqs, queueUrl: harness.queueUrl, payloadsTable: 'unused' },
      identity,
      { actor: 'ops', reason: 'customer withdrew' },
    );
    release();
    await done;
    const record = await harness.client.send(
      new GetCommand({ TableName: records.tableName, Key: refOf(identity).key }),
    );
    return { cancelled, record: record.Item, item: await harness.store.get(identity), worker };
  }

  it('without a declaration, a step refused by the cancel aborts the attempt: the next record write is not sent', async () => {
    const { cancelled, record, item } = await runAndCancel('undeclared-1', 'undeclared');

    expect(cancelled).toMatchObject({ state: 'cancelled', fence: 2 });
    expect(observed.stepError).toBeInstanceOf(OwnershipLostError);
    expect(observed.abortedAfterStep).toBe(true);
    expect(observed.writeError).toBe(observed.stepError); // refused before sending: the abort reason
    expect(record).toMatchObject({ status: 'started', writer_epoch: 1, writer_seq: 1 });
    expect(item).toMatchObject({ state: 'cancelled', fence: 2 });
  });

  it('with ownedRecords, the cancel stamps the records: the holder’s next record write is refused at once and aborts it', async () => {
    const { cancelled, record, item } = await runAndCancel('declared-1', 'declared');

    expect(cancelled).toMatchObject({ state: 'cancelled', fence: 2 });
    expect(item?.ownedRecords).toEqual([{ tableName: records.tableName, key: { id: 'acme/declared-1' } }]);
    expect(observed.writeError).toBeInstanceOf(FenceRejectedError);
    expect(observed.writeError).toMatchObject({ reason: 'newer_claim', fence: 1 });
    expect(observed.abortedAfterStep).toBe(true);
    // The record kept the holder's one write and carries the cancel's fence.
    expect(record).toMatchObject({ status: 'started', writer_epoch: 2, writer_seq: 0 });
    expect(item).toMatchObject({ state: 'cancelled', fence: 2 });
  });

  it('a declared record the holder has not written yet is created fenced: the cancelled holder cannot create it', async () => {
    const { record } = await runAndCancel('declared-2', 'declared', { writeFirst: false });

    expect(observed.writeError).toBeInstanceOf(FenceRejectedError);
    expect(observed.writeError).toMatchObject({ reason: 'newer_claim', fence: 1 });
    expect(record).toEqual({
      id: 'acme/declared-2',
      writer_epoch: 2,
      writer_seq: 0,
      writer_token: 'cancel-2',
      writer_op: expect.any(String),
    });
  });
});
