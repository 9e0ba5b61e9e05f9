import { randomUUID } from 'node:crypto';
import { GetQueueAttributesCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AdminDeps } from '../../lib/admin/deps.js';
import { type JobIdentity, parseIdentity } from '../../lib/identity.js';
import type { JobDefinition } from '../../lib/job-definition.js';
import { serializeEnvelope } from '../../lib/messaging/envelope.js';
import { messageGroupOf } from '../../lib/messaging/message-group.js';
import { sendJob } from '../../lib/messaging/producer.js';
import { wakeEnvelope } from '../../lib/messaging/wake-envelope.js';
import { FINISHED_STATES, WorkState } from '../../lib/states.js';
import type { OperatorStore, PayloadStore, WorkItem } from '../../lib/store/index.js';
import {
  CheckEvidence,
  type CheckEvidenceRecord,
  STACK_CHECK_TENANT_PREFIX,
  StackCheckRows,
} from '../../lib/store/index.js';
import type { PrepareTenant } from './bench.js';

/**
 * A running stack as the check reaches it: the operator's clients on its tables and queue (the stack's own worker,
 * under its own IAM, does the work; the check only sends messages and reads what the worker wrote).
 */
interface StackUnderCheck {
  readonly label: string;
  readonly client: DynamoDBDocumentClient;
  readonly sqs: SQSClient;
  readonly store: OperatorStore;
  readonly payloads: PayloadStore;
  readonly admin: AdminDeps;
  readonly tables: { readonly jobs: string; readonly payloads: string };
  readonly queueUrl: string;
  /** Where the stack holds a check's fault plan, when it enables fault injection (absent: no fault is injected). */
  readonly faults?: FaultPlanDoor;
}

/** Arms and disarms a check run's fault plan in the stack (its secret, or the local stack's plan file). */
interface FaultPlanDoor {
  /** Where the plan is held, for the report (`secret arn:…`, `file …/fault-plan.json`). */
  readonly label: string;
  arm(plan: string): Promise<void>;
  /** Leaves no plan armed (idempotent). */
  disarm(): Promise<void>;
}

/** How long the check waits for the stack's worker, and how often it looks. */
interface ProbeTiming {
  /** Longest wait for one row, quarantine record or drained queue (the stack may be slow to poll). */
  readonly settleMs: number;
  readonly pollMs: number;
}

const DEFAULT_TIMING: ProbeTiming = { settleMs: 60_000, pollMs: 250 };

/** Looks at the queue this many times in a row, finding nothing waiting or in flight, before calling it drained. */
const DRAINED_LOOKS = 3;

/** A send after stop(): the check was interrupted, so the scenario is not evaluated. */
class StoppedProbeError extends Error {
  constructor() {
    super('the check was stopped before this message was sent');
    this.name = 'StoppedProbeError';
  }
}

/**
 * The check's identity a raw body names (a forged job envelope, a wake-up), so its cleanup finds every row the
 * stack made for it (a fault layer's evidence rows included); undefined for a body naming none of the check's.
 */
function namedIdentity(body: string): JobIdentity | undefined {
  try {
    const parsed = JSON.parse(body) as { tenantId?: unknown; operationId?: unknown };
    const { tenantId, operationId } = parsed;
    if (typeof tenantId !== 'string' || typeof operationId !== 'string') return undefined;
    return tenantId.startsWith(STACK_CHECK_TENANT_PREFIX) ? { tenantId, operationId } : undefined;
  } catch {
    return undefined;
  }
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/**
 * What one stack check sent and made, and how it waits for the stack's worker: every tenant is
 * `lfcheck-<run>-<job>-<label>` (found and cleaned up by StackCheckRows), every message id is kept (its quarantine
 * record is found and removed by id). Waits end at `settleMs` with undefined/false, never with a guess.
 */
class StackProbe {
  readonly runId = randomUUID().slice(0, 8);
  readonly messageIds: string[] = [];
  /** Every identity a job message was sent for (the privacy scan reads their work rows). */
  readonly identities: JobIdentity[] = [];
  readonly rows: StackCheckRows;

  constructor(
    readonly stack: StackUnderCheck,
    private readonly timing: ProbeTiming = DEFAULT_TIMING,
  ) {
    this.rows = new StackCheckRows(stack.client, {
      jobsTable: stack.tables.jobs,
      payloadsTable: stack.tables.payloads,
    });
  }

  /** Prepares the job's own records for each fresh tenant (the module's `conformance.prepare`), when set. */
  private prepare: PrepareTenant | undefined;
  /** Set by stop(): no message is sent after it (an interrupted check cleans up what it already sent). */
  private stopped = false;
  /** Which job type's scenarios run now (its index): part of every tenant, so two job types never share one. */
  private scope = 0;
  /** Each table the module declares, by its name in the stack (what `prepare` writes to). */
  private tables: Readonly<Record<string, string>> = {};

  /**
   * Starts the scenarios of the job type at `index`, with its per-tenant preparation and the stack's name of each
   * table the module declares (`tables`: declared name ▶ the stack's).
   */
  begin(index: number, prepare: PrepareTenant | undefined, tables: Readonly<Record<string, string>> = {}): void {
    this.scope = index;
    this.prepare = prepare;
    this.tables = tables;
  }

  /** A tenant only this run and job type use (`lfcheck-<run>-<job>-<label>`), its records prepared for `payload`. */
  async tenant(label: string, payload: unknown): Promise<string> {
    const tenantId = `${STACK_CHECK_TENANT_PREFIX}${this.runId}-${this.scope}-${label}`.slice(0, 64);
    await this.prepare?.({ client: this.stack.client, tenantId, payload, tables: this.tables });
    return tenantId;
  }

  /**
   * The identities sent for the job type whose scenarios run now (its tenants carry its index): a judgement of one
   * type reads its own evidence only, never an earlier type's (another type's unfenced write is not this one's).
   */
  currentIdentities(): JobIdentity[] {
    const prefix = `${STACK_CHECK_TENANT_PREFIX}${this.runId}-${this.scope}-`;
    return this.identities.filter((identity) => identity.tenantId.startsWith(prefix));
  }

  /** From now on every send and wait throws StoppedProbeError: nothing new reaches the stack. */
  stop(): void {
    this.stopped = true;
  }

  /** Sends a job as a producer does (the body into the payloads table, then the message); returns its message id. */
  async send(job: JobDefinition<unknown>, identity: JobIdentity, payload: unknown): Promise<string> {
    this.refuseWhenStopped();
    const sent = await sendJob(
      { sqs: this.stack.sqs, queueUrl: this.stack.queueUrl, payloads: this.stack.payloads },
      { ...identity, jobType: job.type, jobVersion: job.version, payload },
    );
    this.messageIds.push(sent.messageId);
    this.identities.push(identity);
    return sent.messageId;
  }

  /** Sends a raw message body (bad input, a forged envelope); `tenantId` picks its message group. */
  async sendRaw(body: string, tenantId?: string): Promise<string> {
    this.refuseWhenStopped();
    const sent = await this.stack.sqs.send(
      new SendMessageCommand({
        QueueUrl: this.stack.queueUrl,
        MessageBody: body,
        ...(tenantId ? { MessageGroupId: messageGroupOf(tenantId) } : {}),
      }),
    );
    const messageId = sent.MessageId ?? '';
    this.messageIds.push(messageId);
    const named = namedIdentity(body);
    if (named) this.identities.push(named);
    return messageId;
  }

  /** Sends the row's wake-up, as the sweeper or an approval does. */
  async sendWake(row: WorkItem): Promise<string> {
    return this.sendRaw(serializeEnvelope(wakeEnvelope(row)), row.tenantId);
  }

  /** The work row as stored now (a consistent read). */
  row(identity: JobIdentity): Promise<WorkItem | undefined> {
    return this.stack.store.get(parseIdentity(identity), { consistent: true });
  }

  /** The row once `done` holds for it; undefined when it did not within settleMs. */
  async rowWhen(identity: JobIdentity, done: (row: WorkItem) => boolean): Promise<WorkItem | undefined> {
    return this.until(async () => {
      const row = await this.row(identity);
      return row && done(row) ? row : undefined;
    });
  }

  /** The row once the stack's worker left it finished or awaiting approval (no worker acts on it by itself). */
  settled(identity: JobIdentity): Promise<WorkItem | undefined> {
    return this.rowWhen(
      identity,
      (row) => FINISHED_STATES.includes(row.state) || row.state === WorkState.awaiting_approval,
    );
  }

  /**
   * The row once settled, or the message's quarantine record once the worker refused it instead (no row then):
   * whichever comes first; undefined when neither came within settleMs.
   */
  settledOrRefused(
    identity: JobIdentity,
    messageId: string,
  ): Promise<{ row: WorkItem } | { quarantine: Record<string, unknown> } | undefined> {
    return this.until(async () => {
      const row = await this.row(identity);
      if (row && (FINISHED_STATES.includes(row.state) || row.state === WorkState.awaiting_approval)) return { row };
      const quarantine = row ? undefined : await this.rows.quarantine(messageId);
      return quarantine ? { quarantine } : undefined;
    });
  }

  /** The evidence rows the stack's worker wrote for an identity of this run (its fault layer; none without it). */
  evidence(identity: JobIdentity): Promise<CheckEvidenceRecord[]> {
    return new CheckEvidence(this.stack.client, this.stack.tables.jobs).list(identity);
  }

  /** The identity's evidence rows once one matches `found`; undefined when none did within settleMs. */
  evidenceWhen(
    identity: JobIdentity,
    found: (record: CheckEvidenceRecord) => boolean,
  ): Promise<CheckEvidenceRecord | undefined> {
    return this.until(async () => (await this.evidence(identity)).find(found));
  }

  /** Waits `ms` (a scenario waiting out a lease), ending early with StoppedProbeError once stopped. */
  async wait(ms: number): Promise<void> {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      this.refuseWhenStopped();
      await sleep(Math.min(this.timing.pollMs, deadline - Date.now()));
    }
  }

  /** The quarantine record of a message once the stack's worker wrote it; undefined when it did not in time. */
  quarantined(messageId: string): Promise<Record<string, unknown> | undefined> {
    return this.until(() => this.rows.quarantine(messageId));
  }

  /**
   * True once the jobs queue holds nothing visible, in flight or delayed, DRAINED_LOOKS times in a row: every
   * message sent before was received and acknowledged (or moved to the dead-letter queue). False when other
   * traffic kept it busy for settleMs. SQS's counts are approximate; a stack shared with other producers may
   * never drain, and then what depended on it is not evaluated.
   */
  async drained(): Promise<boolean> {
    let empty = 0;
    const done = await this.until(async () => {
      const output = await this.stack.sqs.send(
        new GetQueueAttributesCommand({
          QueueUrl: this.stack.queueUrl,
          AttributeNames: [
            'ApproximateNumberOfMessages',
            'ApproximateNumberOfMessagesNotVisible',
            'ApproximateNumberOfMessagesDelayed',
          ],
        }),
      );
      const waiting = Object.values(output.Attributes ?? {}).reduce((sum, value) => sum + Number(value), 0);
      empty = waiting === 0 ? empty + 1 : 0;
      return empty >= DRAINED_LOOKS ? true : undefined;
    }, true);
    return done === true;
  }

  /** Looks until `look` finds something (returned) or settleMs passed (undefined); after stop() it ends at once. */
  when<T>(look: () => Promise<T | undefined>): Promise<T | undefined> {
    return this.until(look);
  }

  private refuseWhenStopped(): void {
    if (this.stopped) throw new StoppedProbeError();
  }

  /**
   * Looks until `look` finds something or settleMs passed. After stop() a wait ends at once with StoppedProbeError
   * (the rows it waits for are being deleted), except the cleanup's own drain (`evenWhenStopped`).
   */
  private async until<T>(look: () => Promise<T | undefined>, evenWhenStopped = false): Promise<T | undefined> {
    const deadline = Date.now() + this.timing.settleMs;
    for (;;) {
      if (!evenWhenStopped) this.refuseWhenStopped();
      const found = await look();
      if (found !== undefined) return found;
      if (Date.now() >= deadline) return undefined;
      await sleep(this.timing.pollMs);
    }
  }
}

export { DEFAULT_TIMING, type FaultPlanDoor, type ProbeTiming, StackProbe, type StackUnderCheck, StoppedProbeError };
