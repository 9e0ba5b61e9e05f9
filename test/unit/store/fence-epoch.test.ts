import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_FENCE_ABOVE } from '../../../lib/admin/raise-fences.js';
import {
  buildFenceEpochRaise,
  buildFenceEpochRead,
  epochFloor,
  FENCE_EPOCH_ACCRUAL_MS,
  FENCE_EPOCH_BUDGET_START,
  FENCE_EPOCH_BURST,
  FENCE_EPOCH_UNIT,
  fenceEpochAvailableAt,
  fenceEpochBudget,
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

  it('the last fence of the last epoch is 2^53 − 1; the documented cap on `above` (10^12) lies in epoch 0', () => {
    expect(epochFloor(MAX_FENCE_EPOCH + 1) - 1).toBe(Number.MAX_SAFE_INTEGER);
    expect(Number.isSafeInteger(epochFloor(MAX_FENCE_EPOCH + 1) - 1)).toBe(true);
    expect(MAX_FENCE_ABOVE).toBe(10 ** 12);
    // So `above` alone moves the epoch no further than a plain raise: max(stored, 0) + 1.
    expect(fenceEpochOf(MAX_FENCE_ABOVE)).toBe(0);
  });
});

describe('the fence epoch budget: no number of raises uses the epochs up', () => {
  const year = (ms: number) => new Date(ms).getUTCFullYear();

  it('allows FENCE_EPOCH_BURST at once and one more a week, reaching the last epoch only in 2181', () => {
    expect(fenceEpochBudget(FENCE_EPOCH_BUDGET_START - 1)).toBe(FENCE_EPOCH_BURST);
    expect(fenceEpochBudget(FENCE_EPOCH_BUDGET_START)).toBe(FENCE_EPOCH_BURST);
    expect(fenceEpochBudget(FENCE_EPOCH_BUDGET_START + FENCE_EPOCH_ACCRUAL_MS)).toBe(FENCE_EPOCH_BURST + 1);
    expect(year(fenceEpochAvailableAt(MAX_FENCE_EPOCH))).toBe(2181);
    expect(fenceEpochBudget(fenceEpochAvailableAt(MAX_FENCE_EPOCH) + 100 * FENCE_EPOCH_ACCRUAL_MS)).toBe(
      MAX_FENCE_EPOCH,
    );
  });

  it('any epoch is available exactly from fenceEpochAvailableAt on, and the budget never goes back', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: MAX_FENCE_EPOCH }),
        fc.integer({ min: 0, max: 200 * 365 * 24 * 3_600_000 }),
        fc.integer({ min: 0, max: 10 * FENCE_EPOCH_ACCRUAL_MS }),
        (epoch, offset, later) => {
          const at = fenceEpochAvailableAt(epoch);
          expect(fenceEpochBudget(at)).toBeGreaterThanOrEqual(epoch);
          if (at > FENCE_EPOCH_BUDGET_START) expect(fenceEpochBudget(at - 1)).toBe(epoch - 1);
          const now = FENCE_EPOCH_BUDGET_START + offset;
          expect(fenceEpochBudget(now + later)).toBeGreaterThanOrEqual(fenceEpochBudget(now));
          expect(fenceEpochBudget(now)).toBeLessThanOrEqual(MAX_FENCE_EPOCH);
        },
      ),
      { numRuns: 2_000 },
    );
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
