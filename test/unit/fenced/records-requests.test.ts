import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../lib/errors.js';
import { renderBusinessCondition, unmetExpectations } from '../../../lib/fenced/conditions.js';
import { writerOperation } from '../../../lib/fenced/fence-rules.js';
import { buildFencedRecordWrite, parseRecordWrite } from '../../../lib/fenced/record-requests.js';
import { ExpressionBuilder } from '../../../lib/store/driver/expressions.js';
import { claimFixture } from '../../support/claim-fixture.js';

const refund = { tableName: 'refunds', key: { merchant: 'm_4471', refundId: 'r_815' } } as const;

describe('fenced record requests (exact DynamoDB requests)', () => {
  it('a plain write carries "epoch below mine, same operation" AND the business condition, and sets the writer attributes', () => {
    // prepare
    const claim = claimFixture({ fence: 3 });
    // act
    const built = buildFencedRecordWrite(
      claim,
      {
        kind: 'update',
        ref: refund,
        change: { set: { status: 'sending' }, where: { status: { in: ['pending', 'sending'] } }, writeId: 'w1' },
      },
      { kind: 'advance' },
    );
    // assert
    const op = writerOperation(claim.identity);
    expect(built.request).toEqual({
      kind: 'update',
      TableName: 'refunds',
      Key: { merchant: 'm_4471', refundId: 'r_815' },
      UpdateExpression:
        'SET #status = :v5, #writer_epoch = :v6, #writer_seq = :v7, #writer_token = :v8, #writer_op = :v9',
      ConditionExpression:
        '((attribute_not_exists(#writer_epoch) OR #writer_epoch < :v1) AND (attribute_not_exists(#writer_op) OR #writer_op = :v2)) AND (#status IN (:v3, :v4))',
      ExpressionAttributeNames: {
        '#writer_epoch': 'writer_epoch',
        '#writer_op': 'writer_op',
        '#writer_seq': 'writer_seq',
        '#writer_token': 'writer_token',
        '#status': 'status',
      },
      ExpressionAttributeValues: {
        ':v1': 3,
        ':v2': op,
        ':v3': 'pending',
        ':v4': 'sending',
        ':v5': 'sending',
        ':v6': 3,
        ':v7': 0,
        ':v8': built.token,
        ':v9': op,
      },
      ReturnValues: 'ALL_NEW',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
  });

  it('a confirm requires writer_epoch EQUAL to mine and only replaces the write token', () => {
    const claim = claimFixture({ fence: 4 });
    const built = buildFencedRecordWrite(
      claim,
      { kind: 'update', ref: refund, change: { set: { status: 'sent' }, where: { status: 'sending' } } },
      { kind: 'confirm' },
    );
    expect(built.request.ConditionExpression).toBe('(#writer_epoch = :v1 AND #writer_op = :v2) AND (#status = :v3)');
    expect(built.request).toMatchObject({
      UpdateExpression: 'SET #status = :v4, #writer_token = :v5',
      ExpressionAttributeValues: { ':v1': 4, ':v3': 'sending', ':v4': 'sent', ':v5': built.token },
    });
  });

  it('a sequenced write accepts an older epoch, or my epoch with a lower writer_seq', () => {
    const claim = claimFixture({ fence: 2 });
    const built = buildFencedRecordWrite(
      claim,
      { kind: 'update', ref: refund, change: { set: { step: 'b' } } },
      { kind: 'sequence', seq: 7 },
    );
    expect(built.request.ConditionExpression).toBe(
      '(attribute_not_exists(#writer_epoch) OR #writer_epoch < :v1 OR (#writer_epoch = :v1 AND #writer_seq < :v3)) AND (attribute_not_exists(#writer_op) OR #writer_op = :v2)',
    );
    expect(built.request.ExpressionAttributeValues).toMatchObject({ ':v1': 2, ':v3': 7, ':v6': 7 });
  });

  it('a put replaces the item with key and writer attributes, and reads back by the real key on failure', () => {
    const claim = claimFixture({ fence: 5 });
    const built = buildFencedRecordWrite(
      claim,
      { kind: 'put', ref: refund, item: { status: 'pending', amount: 7025 } },
      { kind: 'advance' },
    );
    expect(built.request).toMatchObject({
      kind: 'put',
      readKey: refund.key,
      TableName: 'refunds',
      Item: {
        status: 'pending',
        amount: 7025,
        merchant: 'm_4471',
        refundId: 'r_815',
        writer_epoch: 5,
        writer_seq: 0,
        writer_token: built.token,
        writer_op: writerOperation(claim.identity),
      },
      ConditionExpression:
        '(attribute_not_exists(#writer_epoch) OR #writer_epoch < :v1) AND (attribute_not_exists(#writer_op) OR #writer_op = :v2)',
    });
  });

  it('a write id gives the same token to the same logical write of the same claim, and no id a fresh one', () => {
    const claim = claimFixture();
    const write = { kind: 'update' as const, ref: refund, change: { set: { a: 1 }, writeId: 'publish' } };
    const first = buildFencedRecordWrite(claim, write, { kind: 'advance' }).token;
    const again = buildFencedRecordWrite(claim, write, { kind: 'advance' }).token;
    const nextClaim = buildFencedRecordWrite(claimFixture({ fence: 4 }), write, { kind: 'advance' }).token;
    const unnamed = { kind: 'update' as const, ref: refund, change: { set: { a: 1 } } };
    expect(again).toBe(first);
    expect(nextClaim).not.toBe(first);
    expect(buildFencedRecordWrite(claim, unnamed, { kind: 'advance' }).token).not.toBe(
      buildFencedRecordWrite(claim, unnamed, { kind: 'advance' }).token,
    );
  });

  it('the writer operation differs between identities, so fences of different operations are never compared', () => {
    expect(writerOperation({ tenantId: 't1', operationId: 'a' })).not.toBe(
      writerOperation({ tenantId: 't2', operationId: 'a' }),
    );
  });
});

describe('business conditions', () => {
  it('renders every operator with placeholders', () => {
    const x = new ExpressionBuilder();
    const rendered = renderBusinessCondition(x, {
      status: 'paid',
      a: { ne: 1 },
      b: { in: ['x', 'y'] },
      c: { exists: true },
      d: { exists: false },
      'e.f': { lt: 3 },
      g: { le: 'm' },
      h: { gt: 0 },
      i: { ge: 1 },
    });
    expect(rendered).toBe(
      '#status = :v1 AND #a <> :v2 AND #b IN (:v3, :v4) AND attribute_exists(#c) AND attribute_not_exists(#d) AND #e.#f < :v5 AND #g <= :v6 AND #h > :v7 AND #i >= :v8',
    );
    expect(renderBusinessCondition(new ExpressionBuilder(), {})).toBeUndefined();
  });

  it('evaluates like DynamoDB: a missing attribute fails ordering and equality, passes "not equal"', () => {
    const item = { status: 'paid', count: 2, nested: { flag: true } };
    expect(unmetExpectations(item, { status: 'paid', count: { ge: 1 }, 'nested.flag': true })).toEqual([]);
    expect(unmetExpectations(item, { status: 'refunded', count: { gt: 5 } })).toEqual(['status', 'count']);
    expect(unmetExpectations(item, { missing: { ne: 1 }, other: { lt: 1 } })).toEqual(['other']);
    expect(unmetExpectations(undefined, { status: { exists: false } })).toEqual([]);
    expect(unmetExpectations(item, { count: { lt: '3' } })).toEqual(['count']);
  });
});

describe('fenced record input validation', () => {
  it.each([
    ['a bad table name', { kind: 'update', ref: { tableName: 'x', key: { id: 1 } }, change: {} }, { kind: 'advance' }],
    [
      'a fence attribute in set',
      { kind: 'update', ref: refund, change: { set: { writer_epoch: 9 } } },
      { kind: 'advance' },
    ],
    [
      'a fence attribute in where',
      { kind: 'update', ref: refund, change: { where: { writer_seq: 1 } } },
      { kind: 'advance' },
    ],
    [
      'a key attribute in set',
      { kind: 'update', ref: refund, change: { set: { refundId: 'r_1' } } },
      { kind: 'advance' },
    ],
    ['a fence attribute in a put item', { kind: 'put', ref: refund, item: { writer_op: 'x' } }, { kind: 'advance' }],
    ['an empty attribute name in a put item', { kind: 'put', ref: refund, item: { '': 1 } }, { kind: 'advance' }],
    ['a put item that is not a plain object', { kind: 'put', ref: refund, item: new Date(0) }, { kind: 'advance' }],
    ['a put item that is a list', { kind: 'put', ref: refund, item: [1] }, { kind: 'advance' }],
    [
      'a key of three attributes',
      { kind: 'update', ref: { tableName: 'refunds', key: { a: 1, b: 2, c: 3 } }, change: {} },
      { kind: 'advance' },
    ],
    [
      'a key of no attributes',
      { kind: 'update', ref: { tableName: 'refunds', key: {} }, change: {} },
      { kind: 'advance' },
    ],
    [
      'an empty key attribute name',
      { kind: 'put', ref: { tableName: 'refunds', key: { '': 'r_1' } }, item: {} },
      { kind: 'advance' },
    ],
    ['a sequence number below 1', { kind: 'update', ref: refund, change: {} }, { kind: 'sequence', seq: 0 }],
    [
      'an unknown condition operator',
      { kind: 'update', ref: refund, change: { where: { a: { like: 'x' } } } },
      { kind: 'advance' },
    ],
  ])('refuses %s with InvalidInputError', (_label, write, rule) => {
    expect(() => parseRecordWrite(write, rule)).toThrow(InvalidInputError);
  });

  it('accepts a key of two attributes and a put item with a null prototype', () => {
    const item = Object.assign(Object.create(null), { amount: 5 });
    const write = { kind: 'put', ref: { tableName: 'refunds', key: { pk: 'a', sk: 'b' } }, item };
    expect(parseRecordWrite(write, { kind: 'advance' }).write).toMatchObject({ ref: { key: { pk: 'a', sk: 'b' } } });
  });
});
