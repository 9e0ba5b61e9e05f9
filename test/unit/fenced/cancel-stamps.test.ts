import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../lib/errors.js';
import { cancelStamps, ownedRecordsFor } from '../../../lib/fenced/cancel-stamps.js';
import { writerOperation } from '../../../lib/fenced/fence-rules.js';
import { parseIdentity } from '../../../lib/identity.js';
import { workItemInState } from '../../support/factories.js';

const identity = parseIdentity({ tenantId: 'acme', operationId: 'refund-1' });

describe('cancelStamps', () => {
  it('stamps each owned record with the cancel fence under the one-write-per-claim rule, for this operation only', () => {
    const item = {
      ...workItemInState({ identity, state: 'claimed' }),
      ownedRecords: [{ tableName: 'refunds', key: { id: 'acme/refund-1' } }],
    };

    const [stamp, ...rest] = cancelStamps(item, 4);

    expect(rest).toEqual([]);
    expect(stamp?.Update).toEqual({
      TableName: 'refunds',
      Key: { id: 'acme/refund-1' },
      UpdateExpression: 'SET #writer_epoch = :v3, #writer_seq = :v4, #writer_token = :v5, #writer_op = :v6',
      ConditionExpression:
        '(attribute_not_exists(#writer_epoch) OR #writer_epoch < :v1) AND (attribute_not_exists(#writer_op) OR #writer_op = :v2)',
      ExpressionAttributeNames: {
        '#writer_epoch': 'writer_epoch',
        '#writer_op': 'writer_op',
        '#writer_seq': 'writer_seq',
        '#writer_token': 'writer_token',
      },
      ExpressionAttributeValues: {
        ':v1': 4,
        ':v2': writerOperation(identity),
        ':v3': 4,
        ':v4': 0,
        ':v5': 'cancel-4',
        ':v6': writerOperation(identity),
      },
    });
  });

  it('a row naming no owned records gets no stamps; a bad declaration is refused naming the job type', () => {
    expect(cancelStamps(workItemInState({ identity, state: 'claimed' }), 2)).toEqual([]);
    expect(ownedRecordsFor('refund', undefined, identity)).toBeUndefined();
    expect(() => ownedRecordsFor('refund', () => [{ tableName: 'x', key: {} }], identity)).toThrow(InvalidInputError);
  });
});
