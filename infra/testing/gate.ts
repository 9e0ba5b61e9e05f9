/** Longest the harness waits for one step before it reports the job as hanging (a guard, never a verdict on speed). */
const HANG_GUARD_MS = 20_000;

/** The job did not settle within the hang guard. */
class HarnessHangError extends Error {
  override readonly name = 'HarnessHangError';
}

/** Resolves or rejects like `work`, or rejects with HarnessHangError when it never settles. */
function within<T>(work: Promise<T>, label: string, ms = HANG_GUARD_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const guard = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new HarnessHangError(`${label} did not settle within ${ms} ms`)), ms);
    timer.unref();
  });
  return Promise.race([work, guard]).finally(() => clearTimeout(timer));
}

/**
 * Holds the first caller of `hold()` (a worker paused right after its claim) until `release()`; later
 * callers pass. `reached` resolves once the first caller is held.
 */
class Gate {
  readonly reached: Promise<void>;
  private used = false;
  private signalReached: () => void = () => {};
  private open: () => void = () => {};
  private readonly released: Promise<void>;

  constructor() {
    this.reached = new Promise((resolve) => {
      this.signalReached = resolve;
    });
    this.released = new Promise((resolve) => {
      this.open = resolve;
    });
  }

  async hold(): Promise<void> {
    if (this.used) return;
    this.used = true;
    this.signalReached();
    await this.released;
  }

  release(): void {
    this.open();
  }
}

export { Gate, HarnessHangError, within };
