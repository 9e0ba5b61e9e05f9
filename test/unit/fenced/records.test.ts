import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { BusinessConditionError, FenceRejectedError, InvalidInputError, LeasefenceError } from '../../../lib/errors.js';
import { incompleteBatchError, runFencedBatch } from '../../../lib/fenced/batch.js';
import { writerOperation } from '../../../lib/fenced/fence-rules.js';
import { classifyRejection } from '../../../lib/fenced/record-outcome.js';
import { FencedRecords } from '../../../lib/fenced/records.js';
import type { Claim } from '../../../lib/store/work-items/work-item.js';
import { claimFixture } from '../../support/claim-fixture.js';

const claim = claimFixture({ fence: 3 });
const op = writerOperation(claim.identity);
const mine = { rule: { kind: 'advance' as const }, fence: 3, token: 'tok-3', operation: op };
const ref = (id: string) => ({ tableName: 'refunds', key: { merchant: 'm_4471', refundId: id } });

/** A client that answers every write with ConditionalCheckFailed, returning `current` as the old item. */
function refusingClient(current: Record<string, unknown> | undefined): {
  client: DynamoDBDocumentClient;
  sent: string[];
} {
  const sent: string[] = [];
  const client = {
    send: async (command: { constructor: { name: string } }) => {
      sent.push(command.constructor.name);
      if (command.constructor.name === 'GetItemCommand') return current ? { Item: marshall(current) } : {};
      throw new ConditionalCheckFailedException({
        message: 'The conditional request failed',
        $metadata: {},
        ...(current ? { Item: marshall(current) } : {}),
      });
    },
  } as unknown as DynamoDBDocumentClient;
  return { client, sent };
}

describe('classifying a refused fenced write from the item read back', () => {
  it.each([
    [
      'my own write already landed (lost response)',
      { writer_epoch: 3, writer_token: 'tok-3', writer_op: op },
      'applied',
    ],
    ['a newer claim wrote the record', { writer_epoch: 4, writer_token: 'x', writer_op: op }, 'newer_claim'],
    [
      'this claim already wrote once',
      { writer_epoch: 3, writer_token: 'other', writer_op: op },
      'same_claim_already_wrote',
    ],
    ['another operation owns the record', { writer_epoch: 1, writer_op: 'someone-else' }, 'foreign_operation'],
  ])('%s', (_label, current, expected) => {
    const verdict = classifyRejection(current, mine);
    expect(verdict.kind === 'fence' ? verdict.reason : verdict.kind).toBe(expected);
  });

  it('the fence holding means the business condition failed, naming the unmet attributes', () => {
    const verdict = classifyRejection(
      { status: 'refunded', writer_epoch: 2, writer_op: op },
      { ...mine, where: { status: 'paid' } },
    );
    expect(verdict).toEqual({ kind: 'business', unmet: ['status'] });
  });

  it('sequenced: my epoch with a seq at or above mine is a reordered write; below it the fence holds', () => {
    const sequenced = { ...mine, rule: { kind: 'sequence' as const, seq: 2 } };
    expect(classifyRejection({ writer_epoch: 3, writer_seq: 5, writer_op: op }, sequenced)).toEqual({
      kind: 'fence',
      reason: 'sequence_not_newer',
    });
    expect(classifyRejection({ writer_epoch: 3, writer_seq: 1, writer_op: op }, sequenced).kind).toBe('business');
  });

  it('confirm: a record stamped by an older claim, or never stamped, is not mine to confirm', () => {
    const confirm = { ...mine, rule: { kind: 'confirm' as const } };
    expect(classifyRejection({ writer_epoch: 2, writer_op: op }, confirm)).toEqual({
      kind: 'fence',
      reason: 'not_stamped_by_claim',
    });
    expect(classifyRejection(undefined, confirm)).toEqual({ kind: 'fence', reason: 'not_stamped_by_claim' });
    expect(classifyRejection({ writer_epoch: 9, writer_op: op }, confirm)).toEqual({
      kind: 'fence',
      reason: 'newer_claim',
    });
  });
});

describe('FencedRecords', () => {
  it('a superseded claim calls onFenceRejected once and sends nothing afterwards', async () => {
    // prepare
    const { client, sent } = refusingClient({ status: 'sending', writer_epoch: 4, writer_op: op });
    const rejections: FenceRejectedError[] = [];
    const records = new FencedRecords({ client, claim, onFenceRejected: (error) => rejections.push(error) });
    // act
    const first = records.confirm(ref('r_815'), { set: { status: 'sent' }, where: { status: 'sending' } });
    await expect(first).rejects.toBeInstanceOf(FenceRejectedError);
    const second = records.stamp(ref('r_816'), { set: { status: 'sending' } });
    // assert
    await expect(second).rejects.toBeInstanceOf(FenceRejectedError);
    expect(rejections).toHaveLength(1);
    expect(rejections[0]).toMatchObject({ reason: 'newer_claim', superseded: true, fence: 3, recordEpoch: 4 });
    expect(sent).toEqual(['UpdateItemCommand']);
  });

  it('a business refusal is BusinessConditionError and does not count as a fence rejection', async () => {
    const { client } = refusingClient({ status: 'refunded', writer_epoch: 1, writer_op: op });
    let called = false;
    const records = new FencedRecords({ client, claim, onFenceRejected: () => (called = true) });
    const write = records.write(ref('r_1'), { set: { status: 'sending' }, where: { status: 'paid' } });
    await expect(write).rejects.toBeInstanceOf(BusinessConditionError);
    await expect(write).rejects.toMatchObject({ unmet: ['status'] });
    expect(called).toBe(false);
  });

  it('bad input is refused before anything is sent', async () => {
    const { client, sent } = refusingClient(undefined);
    const records = new FencedRecords({ client, claim });
    await expect(records.write(ref('r_1'), { set: { writer_epoch: 99 } })).rejects.toBeInstanceOf(InvalidInputError);
    await expect(
      records.writeEach([
        { ref: ref('a'), change: {} },
        { ref: ref('a'), change: {} },
      ]),
    ).rejects.toBeInstanceOf(InvalidInputError);
    expect(sent).toEqual([]);
  });

  it('refuses anything that is not a claim from the store', () => {
    const { client } = refusingClient(undefined);
    expect(() => new FencedRecords({ client, claim: { fence: 0 } as unknown as Claim })).toThrow(InvalidInputError);
  });

  it('an aborted signal stops writes before they are sent', async () => {
    const { client, sent } = refusingClient(undefined);
    const abort = new AbortController();
    abort.abort(new Error('lease lost'));
    const records = new FencedRecords({ client, claim, signal: abort.signal });
    await expect(records.write(ref('r_1'), { set: { a: 1 } })).rejects.toThrow('lease lost');
    expect(sent).toEqual([]);
  });
});

describe('fenced batch report', () => {
  const fenceError = new FenceRejectedError('fenced', undefined, { reason: 'newer_claim' });

  it('sorts every record into one bucket and starts nothing after a fence rejection', async () => {
    // prepare: serial lane so the order is deterministic
    const outcomes = ['written', 'already_applied', 'business', 'fence', 'written'] as const;
    const entries = outcomes.map((outcome, index) => ({
      ref: ref(`r_${index}`),
      write: async () => {
        if (outcome === 'business') throw new BusinessConditionError('no', undefined);
        if (outcome === 'fence') throw fenceError;
        return { status: outcome };
      },
    }));
    // act
    const report = await runFencedBatch(entries, 1);
    // assert
    expect(report.complete).toBe(false);
    expect(report.written.map((r) => r.key.refundId)).toEqual(['r_0']);
    expect(report.alreadyApplied.map((r) => r.key.refundId)).toEqual(['r_1']);
    expect(report.businessRejected.map((r) => r.ref.key.refundId)).toEqual(['r_2']);
    expect(report.fenced.map((r) => r.ref.key.refundId)).toEqual(['r_3']);
    expect(report.notAttempted.map((r) => r.key.refundId)).toEqual(['r_4']);
    const error = incompleteBatchError(report);
    expect(error).toBeInstanceOf(FenceRejectedError);
    expect(error.report).toBe(report);
  });

  it('an incomplete batch without fence rejections throws the business error, else a generic one', async () => {
    const business = await runFencedBatch(
      [{ ref: ref('a'), write: async () => Promise.reject(new BusinessConditionError('no', undefined)) }],
      4,
    );
    const failed = await runFencedBatch([{ ref: ref('a'), write: async () => Promise.reject(new Error('EPIPE')) }], 4);
    expect(incompleteBatchError(business)).toBeInstanceOf(BusinessConditionError);
    expect(incompleteBatchError(failed)).toBeInstanceOf(LeasefenceError);
    expect(incompleteBatchError(failed).code).toBe('fenced_batch.incomplete');
  });
});
