import type { SQSClient } from '@aws-sdk/client-sqs';
import { type PollResult, pollOnce, type SqsBatchHandler } from './sqs-event-source.js';

/** How the local event source polls: one handler per poller (each is one "Lambda container"). */
interface QueuePollersOptions {
  sqs: SQSClient;
  queueUrl: string;
  handlers: readonly SqsBatchHandler[];
  batchSize?: number;
  /** Pause after an empty receive, in ms (default 200). */
  idleMs?: number;
  /** Pause after a failed poll, in ms (default 1,000); the batch stays in the queue for redelivery. */
  errorBackoffMs?: number;
  onPoll?: (result: PollResult) => void;
  onError?: (error: unknown) => void;
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * Concurrent pollers doing what the Lambda SQS event source does (pollOnce: batch receive, partial batch
 * failures, delete only what succeeded; failed and thrown batches come back after the visibility timeout).
 * `stop` lets every in-flight batch finish, so no message is abandoned half-handled.
 */
class QueuePollers {
  private readonly abort = new AbortController();
  private loops: Promise<void>[] = [];

  constructor(private readonly options: QueuePollersOptions) {}

  /** Starts one loop per handler. */
  start(): void {
    if (this.loops.length > 0) return;
    this.loops = this.options.handlers.map((handler) => this.loop(handler));
  }

  /** Stops polling and waits for the batches in flight. */
  async stop(): Promise<void> {
    this.abort.abort();
    await Promise.all(this.loops);
  }

  private async loop(handler: SqsBatchHandler): Promise<void> {
    const { signal } = this.abort;
    while (!signal.aborted) {
      try {
        const result = await pollOnce({
          sqs: this.options.sqs,
          queueUrl: this.options.queueUrl,
          handler,
          batchSize: this.options.batchSize ?? 10,
          waitTimeSeconds: 0,
        });
        this.options.onPoll?.(result);
        if (result.received === 0) await pause(this.options.idleMs ?? 200, signal);
      } catch (error) {
        if (signal.aborted) return;
        this.options.onError?.(error);
        await pause(this.options.errorBackoffMs ?? 1_000, signal);
      }
    }
  }
}

export { pause, QueuePollers, type QueuePollersOptions };
