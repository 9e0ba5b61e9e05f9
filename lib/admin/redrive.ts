import type { Message, MessageAttributeValue, SQSClient } from '@aws-sdk/client-sqs';
import * as z from 'zod/mini';
import { ConfigurationError } from '../errors.js';
import { parseInput } from '../internal/validation.js';
import { parseEnvelope } from '../messaging/envelope.js';
import { messageGroupOf } from '../messaging/message-group.js';
import { isRelay, ORIGINAL_SENDER_ATTRIBUTE, type SenderTenants } from '../messaging/sender-tenants.js';
import { resolveSqsClient } from '../messaging/wake.js';
import type { CallerIdentity } from '../store/index.js';
import { writeAuditRecord } from './audit.js';
import type { AdminDeps } from './deps.js';
import { actorSchema, callerSchema } from './schemas.js';

/** How many DLQ messages to move at most, and who asked. */
interface RedriveInput {
  max?: number;
  actor: string;
  caller?: CallerIdentity;
}

/** What a redrive did; also stored as the counts of its audit record. */
interface RedriveReport {
  /** Messages received from the DLQ in this run. */
  received: number;
  /** Sent to the jobs queue and deleted from the DLQ. */
  moved: number;
  /** Of `moved`: bodies that are not valid envelopes, moved as-is so the worker quarantines them with a reason. */
  movedInvalid: number;
  /** Not sent: they stay in the DLQ and become visible again after the visibility timeout. */
  sendFailed: number;
  /** Sent but not deleted from the DLQ: a duplicate wake-up, harmless because every claim is conditional. */
  deleteFailed: number;
  auditId: string;
}

// The schemas here are built on first use (z.lazy: the same checks and issues), not at import: a cold start
// that never reaches them does not build them (test/unit/internal/module-scope-schemas.test.ts).
const redriveSchema = z.lazy(() =>
  z.strictObject({
    max: z._default(z.number().check(z.int(), z.gte(1), z.lte(1000)), 100),
    actor: actorSchema,
    caller: z.optional(callerSchema),
  }),
);

/** The SQS client and the SDK module its commands come from, both loaded by the first redrive. */
interface Queues {
  client: SQSClient;
  sdk: typeof import('@aws-sdk/client-sqs');
}

/** While a batch is being moved it is hidden in the DLQ for this long; a crash makes it reappear there. */
const DLQ_VISIBILITY_SECONDS = 60;

/**
 * Moves up to `max` messages from the DLQ back to the jobs queue with their body and attributes unchanged
 * (identity and payload hash travel in the body), each with its tenant's MessageGroupId (groupToSend), recording the SenderId each had (ORIGINAL_SENDER_ATTRIBUTE, see
 * attributesToSend) so the worker checks a moved message as its producer's, not the admin's: receive ▶ send ▶ delete, so a crash can duplicate a
 * wake-up but never lose one. Writes an audit record with the counts. No DLQ configured ▶ ConfigurationError.
 * @example
 * const { moved } = await redriveDeadLetters(deps, { max: 100, actor });
 */
async function redriveDeadLetters(deps: AdminDeps, input: RedriveInput): Promise<RedriveReport> {
  const valid = parseInput(redriveSchema, input, 'redrive');
  const dlqUrl = deps.deadLetterQueueUrl;
  if (!dlqUrl) throw new ConfigurationError('no dead-letter queue is configured for redrive');
  const counts = { received: 0, moved: 0, movedInvalid: 0, sendFailed: 0, deleteFailed: 0 };
  let failure: unknown;
  try {
    // Loaded here, not at import: the admin function's cold start does not pay for the SQS SDK.
    const [client, sdk] = await Promise.all([resolveSqsClient(deps.sqs), import('@aws-sdk/client-sqs')]);
    const queues: Queues = { client, sdk };
    while (counts.received < valid.max) {
      const output = await client.send(
        new sdk.ReceiveMessageCommand({
          QueueUrl: dlqUrl,
          MaxNumberOfMessages: Math.min(10, valid.max - counts.received),
          VisibilityTimeout: DLQ_VISIBILITY_SECONDS,
          WaitTimeSeconds: deps.dlqWaitTimeSeconds ?? 1,
          MessageAttributeNames: ['All'],
          MessageSystemAttributeNames: ['SenderId', 'MessageGroupId'],
        }),
      );
      const messages = (output.Messages ?? []).filter((message) => message.Body !== undefined && message.ReceiptHandle);
      if (messages.length === 0) break;
      counts.received += messages.length;
      await moveBatch(deps, queues, dlqUrl, messages, counts);
    }
  } catch (error) {
    failure = error;
  }
  // Audited even when interrupted: whatever was already moved must be on the record.
  const auditCounts = failure === undefined ? counts : { ...counts, aborted: 1 };
  const audit = await writeAuditRecord(deps, {
    actor: valid.actor,
    ...(valid.caller ? { caller: valid.caller } : {}),
    action: 'redrive',
    counts: auditCounts,
  });
  if (failure !== undefined) throw failure;
  return { ...counts, auditId: audit.auditId };
}

/** Sends one received batch to the jobs queue, then deletes from the DLQ exactly the entries that were sent. */
async function moveBatch(
  deps: AdminDeps,
  { client, sdk }: Queues,
  dlqUrl: string,
  messages: Message[],
  counts: Omit<RedriveReport, 'auditId'>,
): Promise<void> {
  const parsed = messages.map((message) => parseEnvelope(message.Body ?? ''));
  const sent = await client.send(
    new sdk.SendMessageBatchCommand({
      QueueUrl: deps.queueUrl,
      Entries: messages.map((message, index) => {
        const group = groupToSend(message, parsed[index]);
        return {
          Id: String(index),
          MessageBody: message.Body ?? '',
          ...(group !== undefined ? { MessageGroupId: group } : {}),
          ...attributesToSend(message, deps.senderTenants),
        };
      }),
    }),
  );
  const sentIndexes = (sent.Successful ?? []).map((entry) => Number(entry.Id));
  counts.sendFailed += messages.length - sentIndexes.length;
  if (sentIndexes.length === 0) return;
  const deleted = await client.send(
    new sdk.DeleteMessageBatchCommand({
      QueueUrl: dlqUrl,
      Entries: sentIndexes.map((index) => ({ Id: String(index), ReceiptHandle: messages[index]?.ReceiptHandle ?? '' })),
    }),
  );
  const deletedIndexes = (deleted.Successful ?? []).map((entry) => Number(entry.Id));
  counts.deleteFailed += sentIndexes.length - deletedIndexes.length;
  counts.moved += deletedIndexes.length;
  counts.movedInvalid += deletedIndexes.filter((index) => parsed[index]?.ok !== true).length;
}

/**
 * The group a moved message is sent with: its tenant's (messageGroupOf), as every other send of a tenant's message,
 * so a redriven backlog is one tenant's on a fair queue too; a body naming no valid tenant keeps the group it had
 * in the DLQ, if any (it is quarantined anyway).
 */
function groupToSend(message: Message, parsed: ReturnType<typeof parseEnvelope> | undefined): string | undefined {
  if (parsed?.ok) return messageGroupOf(parsed.identity.tenantId);
  return message.Attributes?.MessageGroupId;
}

/** SQS's limit of message attributes per message. */
const MAX_MESSAGE_ATTRIBUTES = 10;

/**
 * The attributes a moved message keeps, with the SenderId it had in the DLQ as its original sender
 * (ORIGINAL_SENDER_ATTRIBUTE): the worker checks a relayed message against its original sender, not the admin. The
 * attribute is always overwritten (a producer could have set it itself), except when the DLQ sender is one of
 * leasefence's relays (`senderTenants`): then the message was moved before and keeps the sender that earlier move
 * recorded. A message already carrying 10 attributes of its own keeps only the original sender: it must never be
 * checked as the admin's.
 */
function attributesToSend(
  message: Message,
  senderTenants: SenderTenants | undefined,
): { MessageAttributes?: Record<string, MessageAttributeValue> } {
  const copy = copyAttributes(message.MessageAttributes ?? {});
  const senderId = message.Attributes?.SenderId;
  if (senderId && !(senderTenants && isRelay(senderTenants, senderId))) {
    const original = { DataType: 'String', StringValue: senderId };
    if (copy[ORIGINAL_SENDER_ATTRIBUTE] === undefined && Object.keys(copy).length >= MAX_MESSAGE_ATTRIBUTES) {
      return { MessageAttributes: { [ORIGINAL_SENDER_ATTRIBUTE]: original } };
    }
    copy[ORIGINAL_SENDER_ATTRIBUTE] = original;
  }
  return Object.keys(copy).length > 0 ? { MessageAttributes: copy } : {};
}

/** Message attributes as SendMessage accepts them (the list types are reserved by SQS and never set). */
function copyAttributes(attributes: Record<string, MessageAttributeValue>): Record<string, MessageAttributeValue> {
  const copy: Record<string, MessageAttributeValue> = {};
  for (const [name, value] of Object.entries(attributes)) {
    copy[name] = {
      DataType: value.DataType,
      ...(value.StringValue !== undefined ? { StringValue: value.StringValue } : {}),
      ...(value.BinaryValue !== undefined ? { BinaryValue: value.BinaryValue } : {}),
    };
  }
  return copy;
}

export { type RedriveInput, type RedriveReport, redriveDeadLetters };
