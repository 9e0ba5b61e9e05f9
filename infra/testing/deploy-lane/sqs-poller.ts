import { DeleteMessageBatchCommand, type Message, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { EmulatedFunction } from './function-runtime.js';
import type { DeployedMapping } from './read-back.js';
import { messagesToDelete, type SqsEventRecord, toSqsEvent } from './sqs-event.js';

/** The pause between two receives of a loop that found the queue empty (or is filling a batch within its window). */
const POLL_PAUSE_MS = 250;

/** What the poller did, for the lane's report. */
interface PollerCounts {
  invocations: number;
  functionErrors: number;
  deleted: number;
}

/**
 * Lambda's SQS poller, for an emulator that has none (moto does not invoke from SQS): one loop per concurrent
 * environment, up to the mapping's maximum concurrency; each gathers up to `batchSize` messages for at most the
 * batching window, invokes its environment with the SQS event, and deletes what the answer acknowledges
 * (ReportBatchItemFailures as Lambda reads it). Unacknowledged messages return after their visibility timeout.
 */
class MappingPoller {
  readonly counts: PollerCounts = { invocations: 0, functionErrors: 0, deleted: 0 };
  private running = false;
  private loops: Promise<void>[] = [];

  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
    private readonly mapping: DeployedMapping,
    private readonly environments: readonly EmulatedFunction[],
    private readonly region: string,
    private readonly log: (line: string) => void,
  ) {}

  /** Starts the loops (as many as the mapping's maximum concurrency allows, one per emulated environment). */
  start(): void {
    this.running = true;
    const slots = Math.min(this.mapping.maxConcurrency ?? this.environments.length, this.environments.length);
    this.loops = this.environments.slice(0, slots).map((environment) => this.loop(environment));
  }

  /** Stops receiving and waits for the invocations in flight. */
  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  private async loop(environment: EmulatedFunction): Promise<void> {
    while (this.running) {
      try {
        const batch = await this.gather();
        if (batch.length > 0) await this.deliver(environment, batch);
        else await new Promise((done) => setTimeout(done, POLL_PAUSE_MS));
      } catch (error) {
        this.log(`[poller] ${(error as Error).message}`);
        await new Promise((done) => setTimeout(done, 500));
      }
    }
  }

  private async gather(): Promise<Message[]> {
    const batch: Message[] = [];
    const closes = Date.now() + this.mapping.windowSeconds * 1_000;
    for (;;) {
      // Short polls with a pause between: moto's server answers one request at a time in this lane, and a long poll
      // would hold every other client (the functions' own requests) for its whole wait.
      const answer = await this.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: this.queueUrl,
          MaxNumberOfMessages: Math.min(10, this.mapping.batchSize - batch.length),
          WaitTimeSeconds: 0,
          MessageSystemAttributeNames: ['All'],
          MessageAttributeNames: ['All'],
        }),
      );
      batch.push(...(answer.Messages ?? []));
      if (batch.length === 0 || !this.running) return batch;
      if (batch.length >= this.mapping.batchSize || Date.now() >= closes) return batch;
      await new Promise((done) => setTimeout(done, POLL_PAUSE_MS));
    }
  }

  private async deliver(environment: EmulatedFunction, batch: Message[]): Promise<void> {
    const event = toSqsEvent(batch, this.mapping.queueArn, this.region);
    this.counts.invocations += 1;
    const result = await environment.invoke(event);
    if (result.functionError) this.counts.functionErrors += 1;
    await this.acknowledge(messagesToDelete(event.Records, result, this.mapping));
  }

  private async acknowledge(records: readonly SqsEventRecord[]): Promise<void> {
    for (let start = 0; start < records.length; start += 10) {
      const entries = records.slice(start, start + 10).map((record, index) => ({
        Id: String(index),
        ReceiptHandle: record.receiptHandle,
      }));
      await this.sqs.send(new DeleteMessageBatchCommand({ QueueUrl: this.queueUrl, Entries: entries }));
      this.counts.deleted += entries.length;
    }
  }
}

export { MappingPoller, type PollerCounts };
