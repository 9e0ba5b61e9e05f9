/**
 * Source of "now" for leases and deadlines. DynamoDB has no server clock inside expressions, so leases
 * come from the worker's clock. Skew can only make a takeover early (liveness); the fence keeps it safe.
 */
interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

/** The process wall clock. */
const systemClock: Clock = { now: () => Date.now() };

/** A clock tests move by hand: leases expire exactly when the test says so. */
class ManualClock implements Clock {
  constructor(private current = Date.UTC(2026, 0, 1)) {}

  now(): number {
    return this.current;
  }

  advance(ms: number): void {
    this.current += ms;
  }

  set(ms: number): void {
    this.current = ms;
  }
}

export { type Clock, ManualClock, systemClock };
