import { describe, expect, it } from 'vitest';
import { MAX_FENCE_RAISE } from '../../../lib/admin/raise-fences.js';
import {
  buildFenceEpochRaise,
  buildFenceEpochRead,
  epochFloor,
  FENCE_EPOCH_UNIT,
  fenceEpochOf,
  MAX_FENCE_EPOCH,
} from '../../../lib/store/work-items/fence-epoch.js';

describe('fence epochs: a fence is epoch × 2^40 + counter, always a safe integer', () => {
  it('orders by epoch first: the floor of epoch e + 1 is above every fence of epoch e', () => {
    expect(FENCE_EPOCH_UNIT).toBe(2 ** 40);
    expect(fenceEpochOf(epochFloor(3) - 1)).toBe(2);
    expect(fenceEpochOf(epochFloor(3))).toBe(3);
    expect(fenceEpochOf(0)).toBe(0);
    expect(fenceEpochOf(10 ** 12)).toBe(0);
  });

  it('the last fence of the last epoch is 2^53 − 1, and the raise cap leaves that epoch to raise into', () => {
    expect(epochFloor(MAX_FENCE_EPOCH + 1) - 1).toBe(Number.MAX_SAFE_INTEGER);
    expect(Number.isSafeInteger(epochFloor(MAX_FENCE_EPOCH + 1) - 1)).toBe(true);
    expect(fenceEpochOf(MAX_FENCE_RAISE) + 1).toBe(MAX_FENCE_EPOCH);
  });

  it('reads the epoch row consistently and raises it only upwards', () => {
    expect(buildFenceEpochRead('jobs')).toEqual({
      TableName: 'jobs',
      Key: { pk: '#settings', sk: 'fence-epoch' },
      ConsistentRead: true,
    });
    expect(buildFenceEpochRaise('jobs', 2, 1_000)).toMatchObject({
      Key: { pk: '#settings', sk: 'fence-epoch' },
      UpdateExpression: 'SET #epoch = :epoch, #updatedAt = :now',
      ConditionExpression: 'attribute_not_exists(#epoch) OR #epoch < :epoch',
      ExpressionAttributeValues: { ':epoch': 2, ':now': 1_000 },
    });
  });
});
