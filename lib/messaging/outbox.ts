import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { approvalGateUnseen } from '../approval-policy.js';
import { payloadHash } from '../hashing.js';
import { parseIdentity, type ValidIdentity } from '../identity.js';
import { parseInput } from '../internal/validation.js';
import { DAY_MS, jobTypeSchema, jobVersionSchema, RetentionDays } from '../rules.js';
import type { WorkState } from '../states.js';
import { newWorkItem, PayloadStore } from '../store/index.js';
import { type DelayedJobsConfig, jobsStore, recordedOutcome, requireRowsConfig } from './delayed-job.js';
import { serializeEnvelope } from './envelope.js';
import { messageGroupOf } from './message-group.js';
import { wakeEnvelope } from './wake-envelope.js';

/** One entry of a TransactWriteItems request (the document client's form). */
type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** What building an outbox job needs: the jobs table and definitions (`rows`), the payloads table, the queue. */
interface OutboxDependencies {
  sqs: SQSClient;
  queueUrl: string;
  rows: DelayedJobsConfig;
  payloadsTable: string;
  /** The deployment's payload retention (the body's TTL); default RetentionDays.default. */
  payloadRetentionDays?: number;
}

/** A job to enqueue inside the producer's own transaction; the body is stored inline in the payloads table. */
interface OutboxJobInput {
  tenantId: string;
  operationId: string;
  jobType: string;
  jobVersion?: number;
  payload: unknown;
}

/** The entries to add to a TransactWriteItems, and the wake-up to send once it committed. */
interface OutboxEnqueue {
  /** The payload body's conditional Put, then the queued row's (`attribute_not_exists`): add both, unchanged. */
  items: TransactItem[];
  identity: ValidIdentity;
  payloadHash: string;
  /**
   * Call after the transaction committed: sends the row's `wake` with the tenant's group. `deferred` when the send
   * failed: the row is queued and due, so the sweeper wakes it. Never throws.
   */
  wake(): Promise<{ wake: 'sent'; messageId: string } | { wake: 'deferred' }>;
}

/** A job's state after an outbox transaction was cancelled: what the row says of this identity. */
type OutboxReplay =
  | { outcome: 'absent' }
  | { outcome: 'replay'; state: WorkState; outcomeCode?: string; result?: unknown; errorCode?: string }
  | { outcome: 'conflict'; storedPayloadHash: string };

// The schemas here are built on first use (z.lazy: the same checks and issues), not at import: a cold start
// that never reaches them does not build them (test/unit/internal/module-scope-schemas.test.ts).
const outboxOptionsSchema = z.lazy(() =>
  z.strictObject({
    jobType: jobTypeSchema,
    jobVersion: z.optional(jobVersionSchema),
    payloadRetentionDays: z.optional(z.number().check(z.int(), z.gte(RetentionDays.min), z.lte(RetentionDays.max))),
  }),
);

/**
 * Transactional enqueue (the outbox): the TransactWriteItems entries that create a queued job (its payload body,
 * then its row, both conditional, built by lib/store) for the producer to add beside its own business write, so
 * both land or neither does; then `wake()` after the commit. A lost wake-up is the sweeper's: the row is queued and
 * due now on the deadline index. A retried transaction fails on the row's condition (the identity exists) and
 * writes nothing: `outboxReplay` then tells a replay from a conflict. Bad input, or a job type `rows` does not
 * define ▶ InvalidInputError before anything is built. Reads the fence epoch; writes nothing itself.
 * @example
 * const job = await enqueueTransactItems(deps, { tenantId: 'acme', operationId: 'order-42/ship', jobType: 'ship', payload });
 * await doc.send(new TransactWriteCommand({ TransactItems: [businessPut, ...job.items] }));
 * await job.wake();
 */
async function enqueueTransactItems(deps: OutboxDependencies, input: OutboxJobInput): Promise<OutboxEnqueue> {
  const identity = parseIdentity({ tenantId: input.tenantId, operationId: input.operationId });
  const options = parseInput(
    outboxOptionsSchema,
    { jobType: input.jobType, jobVersion: input.jobVersion, payloadRetentionDays: deps.payloadRetentionDays },
    'outbox job',
  );
  const { config, definition } = requireRowsConfig({ delayed: deps.rows }, options.jobType);
  const hash = payloadHash(input.payload);
  const store = jobsStore(config);
  const retentionMs = (options.payloadRetentionDays ?? RetentionDays.default) * DAY_MS;
  const payloads = new PayloadStore(config.client, deps.payloadsTable, { now: () => store.now() }, retentionMs);
  const jobVersion = options.jobVersion ?? definition.version;
  const binding = { jobType: options.jobType, payloadHash: hash, payload: { inline: true as const }, jobVersion };
  // The body is not parsed by the job's schema here, so a predicate cannot be asked: any policy gates the row.
  const gate = approvalGateUnseen(definition.approval, store.now());
  const row = await store.createQueuedRequest(newWorkItem(identity, binding, definition.maxAttempts, undefined, gate));
  const items: TransactItem[] = [{ Put: payloads.putRequest(identity, input.payload, hash) }, { Put: row }];
  const wake = async () => {
    try {
      const sent = await deps.sqs.send(
        new SendMessageCommand({
          QueueUrl: deps.queueUrl,
          MessageBody: serializeEnvelope(wakeEnvelope(row.Item)),
          MessageGroupId: messageGroupOf(identity.tenantId),
        }),
      );
      return { wake: 'sent' as const, messageId: sent.MessageId ?? '' };
    } catch {
      // The row committed queued and due: the sweeper re-signals it.
      return { wake: 'deferred' as const };
    }
  };
  return { items, identity, payloadHash: hash, wake };
}

/**
 * After an outbox transaction was cancelled: whether the job already exists with this payload (`replay`: the
 * transaction was retried; the job runs at most once, its state and outcome are given), with another
 * (`conflict`), or not at all (`absent`: the cancel was the business write's). Reads the row; writes nothing.
 */
async function outboxReplay(deps: Pick<OutboxDependencies, 'rows'>, job: OutboxEnqueue): Promise<OutboxReplay> {
  const stored = await jobsStore(deps.rows).get(job.identity);
  if (!stored) return { outcome: 'absent' };
  if (stored.payloadHash !== job.payloadHash) return { outcome: 'conflict', storedPayloadHash: stored.payloadHash };
  return { outcome: 'replay', state: stored.state, ...recordedOutcome(stored) };
}

export {
  enqueueTransactItems,
  type OutboxDependencies,
  type OutboxEnqueue,
  type OutboxJobInput,
  type OutboxReplay,
  outboxReplay,
};
