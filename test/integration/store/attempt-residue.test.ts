import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ValidIdentity } from '../../../lib/identity.js';
import { WorkState } from '../../../lib/states.js';
import type { OperatorStore } from '../../../lib/store/operator/operator-store.js';
import {
  raiseFenceTransition,
  requeueTransition,
  resolveTransition,
  sweepToUnknownTransition,
} from '../../../lib/store/operator/operator-transitions.js';
import { UNRUNNABLE_CEILING, UnrunnableCode } from '../../../lib/store/unrunnable/unrunnable-requests.js';
import { parseLease } from '../../../lib/store/work-items/schemas.js';
import { parseJobOutcome } from '../../../lib/store/work-items/transitions.js';
import type { Claim, WorkItem } from '../../../lib/store/work-items/work-item.js';
import { createTestTables, type TestTables } from '../../support/engine.js';
import { expectClaimed, expectState } from '../../support/expectations.js';
import { newIdentity, newWorkItem } from '../../support/factories.js';
import { type StoreFixture, storeFixture } from '../../support/store.js';

const LEASE_MS = 60_000;
const LEASE = parseLease({ owner: 'w1', leaseMs: LEASE_MS });
const OPERATOR = { actor: 'alice@example.com', reason: 'checked with the provider' };
const REQUEUE_FROM: readonly WorkState[] = [WorkState.failed_terminal, WorkState.unknown, WorkState.quarantined];

/** What the row must show after a transition: exactly what the transition that entered its state wrote. */
interface Visible {
  errorCode?: string;
  errorMessage?: string;
  outcomeCode?: string;
}

/** One run's row: its identity, the live claim (while claimed) and what it must show. */
interface Run {
  identity: ValidIdentity;
  claim?: Claim;
  visible: Visible;
  step: number;
}

/** An action: applies when the row is in one of its states; answers what the row must show afterwards. */
interface Action {
  readonly from: readonly WorkState[];
  /** Needs the live claim (a holder transition); a claim needs there to be none. */
  readonly holder?: boolean;
  readonly apply: (store: OperatorStore, run: Run, item: WorkItem, fixture: StoreFixture) => Promise<Visible | 'same'>;
}

const claimOf = (run: Run): Claim => {
  if (!run.claim) throw new Error('no claim');
  return run.claim;
};

/** The transitions of the state machine, holder's, operator's and sweeper's, each with a code unique to its step. */
const ACTIONS: Record<string, Action> = {
  claim: {
    from: [WorkState.queued, WorkState.claimed],
    apply: async (store, run, item, { clock }) => {
      if (item.attempts >= item.maxAttempts) return 'same';
      // Due, or (a holder cut off) its lease run out: a takeover.
      clock.set(Math.max(clock.now(), item.availableAt ?? 0, (item.leaseExpiresAt ?? 0) + 1));
      run.claim = expectClaimed(await store.claim(run.identity, LEASE));
      return {};
    },
  },
  complete: {
    from: [WorkState.claimed],
    holder: true,
    apply: async (store, run) => {
      const outcomeCode = `done_${run.step}`;
      await store.complete(claimOf(run), parseJobOutcome({ outcomeCode, result: { step: run.step } }));
      return { outcomeCode };
    },
  },
  retryable: {
    from: [WorkState.claimed],
    holder: true,
    apply: async (store, run) => {
      const claim = claimOf(run);
      const failure = { errorCode: `busy_${run.step}`, retryDelayMs: 0 };
      const state = await store.failRetryable(claim, failure);
      if (state === WorkState.queued) return { errorCode: failure.errorCode };
      const errorMessage = `attempts exhausted (${claim.attempt}/${claim.maxAttempts}); last error: ${failure.errorCode}`;
      return { errorCode: 'attempts_exhausted', errorMessage };
    },
  },
  failTerminal: {
    from: [WorkState.claimed],
    holder: true,
    apply: async (store, run) => {
      const failure = { errorCode: `bad_${run.step}`, message: `refused at step ${run.step}` };
      await store.failTerminal(claimOf(run), failure);
      return { errorCode: failure.errorCode, errorMessage: failure.message };
    },
  },
  parkUnknown: {
    from: [WorkState.claimed],
    holder: true,
    apply: async (store, run) => {
      const failure = { errorCode: `fence_same_claim_already_wrote_${run.step}`, message: 'use sequenced writes' };
      await store.parkUnknown(claimOf(run), failure);
      return { errorCode: failure.errorCode, errorMessage: failure.message };
    },
  },
  quarantine: {
    from: [WorkState.claimed],
    holder: true,
    apply: async (store, run) => {
      await store.quarantine(claimOf(run), { errorCode: `schema_${run.step}` });
      return { errorCode: `schema_${run.step}` };
    },
  },
  sweepToUnknown: {
    from: [WorkState.claimed],
    apply: async (store, _run, item, { clock }) => {
      if (item.attempts < item.maxAttempts) return 'same';
      clock.advance(LEASE_MS + 1);
      const swept = await store.applyOperator(item, sweepToUnknownTransition(item, clock.now()));
      expect(swept.ok).toBe(true);
      return {
        errorCode: 'lease_expired_attempts_exhausted',
        errorMessage: 'the last attempt lost its lease and no attempts remain; outcome unconfirmed',
      };
    },
  },
  retry: {
    from: REQUEUE_FROM,
    apply: async (store, run, _item, { clock }) => {
      const shard = store.deadlines.shardOf(run.identity);
      await store.operate(run.identity, REQUEUE_FROM, (current) =>
        requeueTransition(current, OPERATOR, shard, clock.now()),
      );
      return {};
    },
  },
  resolveQueued: {
    from: [WorkState.unknown],
    apply: async (store, run, _item, { clock }) => {
      const shard = store.deadlines.shardOf(run.identity);
      await store.operate(run.identity, [WorkState.unknown], (current) =>
        requeueTransition(current, { ...OPERATOR, auditAction: 'resolve_queued' }, shard, clock.now()),
      );
      return {};
    },
  },
  resolveSucceeded: {
    from: [WorkState.unknown],
    apply: async (store, run, _item, { clock }) => {
      const outcomeCode = `settled_${run.step}`;
      await store.operate(run.identity, [WorkState.unknown], (current) =>
        resolveTransition(current, WorkState.succeeded, { ...OPERATOR, outcomeCode }, clock.now()),
      );
      return { outcomeCode };
    },
  },
  resolveFailed: {
    from: [WorkState.unknown],
    apply: async (store, run, _item, { clock }) => {
      const errorCode = `settled_failed_${run.step}`;
      await store.operate(run.identity, [WorkState.unknown], (current) =>
        resolveTransition(current, WorkState.failed_terminal, { ...OPERATOR, outcomeCode: errorCode }, clock.now()),
      );
      return { errorCode };
    },
  },
  raiseFence: {
    from: [
      WorkState.queued,
      WorkState.claimed,
      WorkState.succeeded,
      WorkState.failed_terminal,
      WorkState.unknown,
      WorkState.quarantined,
      WorkState.cancelled,
    ],
    apply: async (store, run, item) => {
      const raised = await store.applyOperator(item, raiseFenceTransition(item, item.fence + 100, OPERATOR));
      expect(raised.ok).toBe(true);
      // The holder is cut off: it is no longer the row's claim.
      run.claim = undefined;
      return 'same';
    },
  },
  raiseFenceRequeue: {
    from: [WorkState.failed_terminal],
    apply: async (store, run, item, { clock }) => {
      const shard = store.deadlines.shardOf(run.identity);
      const transition = {
        ...requeueTransition(item, { ...OPERATOR, auditAction: 'raise_fence_requeue' }, shard, clock.now()),
        fenceTo: item.fence + 100,
      };
      const raised = await store.applyOperator(item, transition);
      expect(raised.ok).toBe(true);
      return {};
    },
  },
  unrunnableNote: {
    from: [WorkState.queued],
    apply: async (store, run) => {
      // A worker that runs no version of the row's type refused its wake-up: noted on the row, nothing visible.
      await store.unrunnable.refused({ identity: run.identity, jobType: 'demo' });
      return 'same';
    },
  },
  parkUnrunnable: {
    from: [WorkState.queued],
    apply: async (store, run, _item, { clock }) => {
      await store.unrunnable.refused({ identity: run.identity, jobType: 'demo' });
      clock.advance(UNRUNNABLE_CEILING.maxWaitMs);
      expect(await store.unrunnable.refused({ identity: run.identity, jobType: 'demo' })).toBe('parked');
      const parked = (await store.get(run.identity)) as WorkItem;
      expect(parked.errorMessage).toContain('no worker runs job type demo');
      return { errorCode: UnrunnableCode.jobType, errorMessage: parked.errorMessage as string };
    },
  },
  cancel: {
    from: [WorkState.queued, WorkState.claimed, WorkState.unknown],
    apply: async (store, run) => {
      await store.cancel(run.identity, OPERATOR);
      run.claim = undefined;
      return {};
    },
  },
};

/** The row's visible error and outcome, as `show`, the console and a producer's replay read them. */
function visibleOf(item: WorkItem): Visible {
  return {
    ...(item.errorCode !== undefined ? { errorCode: item.errorCode } : {}),
    ...(item.errorMessage !== undefined ? { errorMessage: item.errorMessage } : {}),
    ...(item.outcomeCode !== undefined ? { outcomeCode: item.outcomeCode } : {}),
  };
}

describe('what an earlier attempt left on a row never outlives its state', () => {
  let tables: TestTables;
  let fixture: StoreFixture;

  beforeAll(async () => {
    tables = await createTestTables('attempt-residue');
    fixture = storeFixture(tables.jobsTable);
  });
  afterAll(async () => {
    fixture.client.destroy();
    await tables.drop();
  });

  /** The actions that apply to the row as it stands. */
  function applicable(item: WorkItem, run: Run): string[] {
    return Object.keys(ACTIONS).filter((name) => {
      const action = ACTIONS[name] as Action;
      if (!action.from.includes(item.state)) return false;
      if (action.holder) return run.claim !== undefined;
      return name !== 'claim' || run.claim === undefined;
    });
  }

  /** Applies a sequence of transitions, each chosen among those that apply (`picks`), checking the row after each. */
  async function runSequence(picks: readonly (number | string)[]): Promise<void> {
    const { store } = fixture;
    const identity = newIdentity();
    await store.enqueue(newWorkItem(identity, { maxAttempts: 2 }));
    const run: Run = { identity, visible: {}, step: 0 };
    for (const pick of picks) {
      run.step += 1;
      const item = (await store.get(identity)) as WorkItem;
      const choices = applicable(item, run);
      const name = typeof pick === 'string' ? pick : choices[pick % choices.length];
      if (name === undefined || !choices.includes(name)) continue;
      const visible = await (ACTIONS[name] as Action).apply(store, run, item, fixture);
      if (visible !== 'same') run.visible = visible;
      const after = (await store.get(identity)) as WorkItem;
      if (after.state !== WorkState.claimed) run.claim = undefined;
      // The property: the row shows exactly what the transition that entered its current state wrote.
      expect({ after: name, state: after.state, ...visibleOf(after) }).toEqual({
        after: name,
        state: after.state,
        ...run.visible,
      });
      if (after.state !== WorkState.succeeded) expect(after.result).toBeUndefined();
      if (after.state !== WorkState.queued) expect(after).not.toHaveProperty('unrunnableRefusals');
    }
  }

  it('after a requeue (operator retry, resolve to queued, raise-fences) and a successful run, the row shows the success only', async () => {
    for (const requeue of ['retry', 'resolveQueued', 'raiseFenceRequeue']) {
      const fail = requeue === 'raiseFenceRequeue' ? 'failTerminal' : 'parkUnknown';
      await runSequence(['claim', fail, requeue, 'claim', 'complete']);
    }
    const { store } = fixture;
    const identity = newIdentity();
    await store.enqueue(newWorkItem(identity));
    const first = expectClaimed(await store.claim(identity, LEASE));
    await store.parkUnknown(first, { errorCode: 'fence_same_claim_already_wrote', message: 'use sequenced writes' });
    await store.operate(identity, REQUEUE_FROM, (current) =>
      requeueTransition(current, OPERATOR, store.deadlines.shardOf(identity), fixture.clock.now()),
    );
    const queued = await expectState(store, identity, WorkState.queued);
    expect(queued.errorCode).toBeUndefined();
    const second = expectClaimed(await store.claim(identity, LEASE));
    await store.complete(second, parseJobOutcome({ outcomeCode: 'refunded' }));
    const done = await expectState(store, identity, WorkState.succeeded);
    expect(done).not.toHaveProperty('errorCode');
    expect(done).not.toHaveProperty('errorMessage');
    // The earlier attempt's code is kept, as attempt history.
    expect(done.ah?.map((entry) => entry.r)).toEqual(['fence_same_claim_already_wrote', 'refunded']);
  });

  it('property: over any sequence of transitions, the visible error and outcome belong to the current state', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat({ max: 1000 }), { minLength: 1, maxLength: 12 }), (picks) => runSequence(picks)),
      { numRuns: 30 },
    );
  });
});
