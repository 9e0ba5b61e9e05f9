import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sweepToUnknownTransition } from '../../../lib/store/operator/operator-transitions.js';
import {
  ATTEMPT_HISTORY_LIMIT,
  type AttemptRecord,
  closeAttempts,
  LEASE_LOST_CODE,
  openAttempt,
} from '../../../lib/store/work-items/attempt-history.js';
import { workItemInState } from '../../support/factories.js';

describe('attempt history', () => {
  it('closes the newest open entry with the code, and earlier open ones (a takeover chain) as lease_lost', () => {
    // prepare: one closed attempt, then three claims in a row where the first two lost their leases
    const history = [
      { f: 1, o: 'w1', s: 100, e: 150, r: 'provider_timeout' },
      openAttempt('w2', 200),
      openAttempt('w3', 300),
      openAttempt('w4', 400),
    ];

    // act
    const closed = closeAttempts(history, 4, 450, 'refunded');

    // assert
    expect(closed).toEqual([
      { f: 1, o: 'w1', s: 100, e: 150, r: 'provider_timeout' },
      { f: 2, o: 'w2', s: 200, r: 'lease_lost' },
      { f: 3, o: 'w3', s: 300, r: 'lease_lost' },
      { f: 4, o: 'w4', s: 400, e: 450, r: 'refunded' },
    ]);
  });

  it('keeps the last five entries', () => {
    // prepare
    const history = Array.from({ length: 6 }, (_, index) => ({ f: index + 1, o: 'w', s: index, e: index, r: 'e' }));

    // act
    const closed = closeAttempts([...history, openAttempt('w', 10)], 7, 11, 'ok');

    // assert
    expect(closed.map((entry) => entry.f)).toEqual([3, 4, 5, 6, 7]);
  });

  it('the sweeper closes the running attempt it parks as unknown, in its own conditional write', () => {
    // prepare
    const claimed = workItemInState({ identity: { tenantId: 't', operationId: 'o' }, state: 'claimed', now: 1_000 });

    // act
    const transition = sweepToUnknownTransition({ ...claimed, fence: 3 }, 40_000);

    // assert
    expect(transition.set.ah).toEqual([
      { o: 'factory-worker', s: 1_000, f: 3, e: 40_000, r: 'lease_expired_attempts_exhausted' },
    ]);
  });

  it('closes exactly as the plain rule says, for any history (property)', () => {
    // The rule, written the obvious way: walk back over the open entries, then keep the last few.
    function reference(history: AttemptRecord[], fence: number, end: number, code: string): AttemptRecord[] {
      const entries = [...history];
      let nextFence = fence;
      for (let index = entries.length - 1; index >= 0 && entries[index]?.r === undefined; index -= 1) {
        const entry = entries[index] as AttemptRecord;
        entries[index] =
          nextFence === fence
            ? { ...entry, f: nextFence, e: end, r: code }
            : { ...entry, f: nextFence, r: LEASE_LOST_CODE };
        nextFence -= 1;
      }
      return entries.slice(-ATTEMPT_HISTORY_LIMIT);
    }
    const closedEntry = fc.record({ f: fc.nat(50), o: fc.string(), s: fc.nat(), e: fc.nat(), r: fc.string() });
    const openEntry = fc.record({ o: fc.string(), s: fc.nat() });
    fc.assert(
      fc.property(
        fc.array(closedEntry, { maxLength: 7 }),
        fc.array(openEntry, { maxLength: 7 }),
        fc.integer({ min: 1, max: 100 }),
        (closed, open, fence) => {
          const history = [...closed, ...open];
          expect(closeAttempts(history, fence, 99, 'done')).toEqual(reference(history, fence, 99, 'done'));
        },
      ),
      { numRuns: 500 },
    );
  });
});
