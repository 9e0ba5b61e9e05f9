import { describe, expect, it } from 'vitest';
import { retryWakeDelaySeconds } from '../../../lib/messaging/retry-wake.js';
import { SQS_MAX_DELAY_SECONDS } from '../../../lib/messaging/wake-envelope.js';

describe('retryWakeDelaySeconds: never visible before the row is due, never past SQS delay limit', () => {
  it.each([
    [0, 0],
    [1, 1],
    [999, 1],
    [1_000, 1],
    [1_001, 2],
    [59_500, 60],
    [900_000, 900],
  ])('a backoff of %i ms wakes after %i s (rounded up)', (delayMs, seconds) => {
    expect(retryWakeDelaySeconds(delayMs)).toBe(seconds);
  });

  it('a backoff past 15 minutes has no delayed message: the sweeper wakes it', () => {
    expect(SQS_MAX_DELAY_SECONDS).toBe(900);
    expect(retryWakeDelaySeconds(900_001)).toBeUndefined();
    expect(retryWakeDelaySeconds(3_600_000)).toBeUndefined();
  });
});
