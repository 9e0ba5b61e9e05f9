/**
 * A one-shot pause point: a job awaits `pass()`, the scenario awaits `reached` (the job is paused there),
 * does what it wants (expire the lease, run a rival), then `open()`s it. Bounded: `pass` gives up after
 * `timeoutMs` so a broken scenario cannot hang the benchmark.
 */
class Gate {
  readonly reached: Promise<void>;
  private markReached!: () => void;
  private release!: () => void;
  private readonly opened: Promise<void>;

  constructor(private readonly timeoutMs = 30_000) {
    this.reached = new Promise((resolve) => {
      this.markReached = resolve;
    });
    this.opened = new Promise((resolve) => {
      this.release = resolve;
    });
  }

  /** Called by the paused job: signals `reached`, then waits for `open()` (or the timeout). */
  async pass(): Promise<void> {
    this.markReached();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('gate was never opened')), this.timeoutMs);
    });
    try {
      await Promise.race([this.opened, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Lets the paused job continue. */
  open(): void {
    this.release();
  }
}

/** Resolves after `ms` milliseconds of real time. */
function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export { Gate, sleep };
