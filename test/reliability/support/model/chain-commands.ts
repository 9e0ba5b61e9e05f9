import fc from 'fast-check';

/**
 * The transitions issue 26 adds to the interleaving model, in their own file (the shared model's commands stay
 * as they are): a parent's holders that enqueue a successor, and schedule ticks delivered in any order.
 */

/** Holders of one parent job: start (claim, then pause inside run), let the lease lapse, resume (enqueue + complete). */
type ChainCommand = { kind: 'start'; holder: number } | { kind: 'expire' } | { kind: 'resume'; holder: number };

/** A schedule tick delivered `copies` times at once, `lateMinutes` after its time (a retry, a second scheduler). */
type TickCommand = { kind: 'tick'; tick: number; copies: number; lateMinutes: number };

const HOLDERS = 3;
const TICKS = 4;

const chainCommand: fc.Arbitrary<ChainCommand> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('start' as const), holder: fc.nat(HOLDERS - 1) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('expire' as const) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('resume' as const), holder: fc.nat(HOLDERS - 1) }) },
);

const tickCommand: fc.Arbitrary<TickCommand> = fc.record({
  kind: fc.constant('tick' as const),
  tick: fc.nat(TICKS - 1),
  copies: fc.integer({ min: 1, max: 3 }),
  lateMinutes: fc.constantFrom(0, 0, 1, 14),
});

/** A run: a holder interleaving of one parent and a tick delivery sequence of one schedule. */
interface ChainPlan {
  chain: ChainCommand[];
  ticks: TickCommand[];
}

const chainPlanArbitrary: fc.Arbitrary<ChainPlan> = fc.record({
  chain: fc.array(chainCommand, { minLength: 3, maxLength: 10 }),
  ticks: fc.array(tickCommand, { minLength: 2, maxLength: 8 }),
});

export { type ChainCommand, type ChainPlan, chainPlanArbitrary, HOLDERS, TICKS, type TickCommand };
