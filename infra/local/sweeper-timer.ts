import type { SQSClient } from '@aws-sdk/client-sqs';
import type { SweeperStore } from '../../lib/store/index.js';
import { sweepFromStoredCursor } from '../../lib/sweeper/cursor.js';
import type { SweepSummary } from '../../lib/sweeper/sweeper.js';
import { pause } from './pollers.js';

/** What the local sweeper schedule needs. */
interface SweeperTimerOptions {
  store: SweeperStore;
  sqs: SQSClient;
  queueUrl: string;
  intervalMs: number;
  onSweep?: (summary: SweepSummary) => void;
  onError?: (error: unknown) => void;
}

/**
 * The EventBridge schedule of the sweeper Lambda, locally: one bounded sweep per interval, resuming from the
 * cursor stored in the jobs table, as the Lambda does (a failed run stores nothing; the index is the truth).
 */
class SweeperTimer {
  private readonly abort = new AbortController();
  private running: Promise<void> | undefined;

  constructor(private readonly options: SweeperTimerOptions) {}

  /** Starts the schedule; the first sweep runs one interval from now. */
  start(): void {
    this.running ??= this.loop();
  }

  /** Stops the schedule and waits for a sweep in flight. */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.running;
  }

  private async loop(): Promise<void> {
    const { signal } = this.abort;
    while (!signal.aborted) {
      await pause(this.options.intervalMs, signal);
      if (signal.aborted) return;
      try {
        const summary = await sweepFromStoredCursor({
          store: this.options.store,
          sqs: this.options.sqs,
          queueUrl: this.options.queueUrl,
        });
        this.options.onSweep?.(summary);
      } catch (error) {
        if (!signal.aborted) this.options.onError?.(error);
      }
    }
  }
}

export { SweeperTimer, type SweeperTimerOptions };
