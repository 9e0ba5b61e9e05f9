import type { Message, SQSClient } from '@aws-sdk/client-sqs';
import { parseEnvelope } from '../messaging/envelope.js';
import { resolveSqsClient } from '../messaging/wake.js';
import type { ErasureScope } from '../store/index.js';
import type { AdminDeps } from './deps.js';

/** What one pass over the DLQ found and removed for an erased tenant (or operation). */
interface DeadLetterErasure {
  /** Messages received from the DLQ in this pass. */
  received: number;
  /** Messages naming the erased tenant (or operation), deleted from the DLQ: their bodies are gone with them. */
  removed: number;
  /** Messages no tenant could be read from (not JSON, no string tenantId): kept, and reported (they may hold anyone's data). */
  unattributed: number;
  /** Messages of the scope whose delete failed: still in the DLQ (erase again). */
  deleteFailed: number;
  /** True when a receive came back empty (every visible message was seen) and every delete of the scope landed. */
  complete: boolean;
}

/** While one pass reads the DLQ, the messages it saw stay hidden this long, so the pass reaches the others. */
const SCAN_VISIBILITY_SECONDS = 30;

/**
 * The tenant and operation a DLQ message names: from the envelope when it parses, else from a JSON object's own
 * string `tenantId`/`operationId` (a message the worker refused can still carry someone's body); undefined when the
 * message names none.
 */
function namedIdentity(body: string): { tenantId: string; operationId?: string } | undefined {
  const parsed = parseEnvelope(body);
  if (parsed.ok) return parsed.identity;
  let raw: unknown;
  try {
    raw = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  const { tenantId, operationId } = raw as { tenantId?: unknown; operationId?: unknown };
  if (typeof tenantId !== 'string') return undefined;
  return typeof operationId === 'string' ? { tenantId, operationId } : { tenantId };
}

/** True when a message naming `named` falls in the erasure's scope (an unnamed operation matches a tenant scope only). */
function inScope(named: { tenantId: string; operationId?: string }, scope: ErasureScope): boolean {
  if (named.tenantId !== scope.tenantId) return false;
  return scope.operationId === undefined || named.operationId === scope.operationId;
}

/**
 * Deletes from the DLQ every message naming the erased tenant (or operation): a carried body sits there for the DLQ's
 * retention (14 days) where the tables' erasure cannot reach it. Reads up to `max` messages (each hidden for
 * SCAN_VISIBILITY_SECONDS so the pass moves on), deletes those in scope, makes the others visible again unchanged,
 * and says what it could not attribute. No DLQ configured ▶ undefined (nothing to erase). The live jobs queue is never read here:
 * its messages belong to the worker (docs: infra/README.md, "Erasure").
 */
async function eraseDeadLetters(
  deps: AdminDeps,
  scope: ErasureScope,
  max: number,
): Promise<DeadLetterErasure | undefined> {
  const dlqUrl = deps.deadLetterQueueUrl;
  if (!dlqUrl) return undefined;
  // Loaded here, not at import: the admin function's cold start does not pay for the SQS SDK.
  const [client, sdk] = await Promise.all([resolveSqsClient(deps.sqs), import('@aws-sdk/client-sqs')]);
  const report: DeadLetterErasure = { received: 0, removed: 0, unattributed: 0, deleteFailed: 0, complete: false };
  const kept: string[] = [];
  try {
    await scan(client, sdk, dlqUrl, deps.dlqWaitTimeSeconds ?? 1, { scope, max, report, kept });
  } finally {
    await release(client, sdk, dlqUrl, kept);
  }
  return report;
}

/** What one scan works on: its scope and bound, the report it fills and the receipt handles of messages it keeps. */
interface ScanState {
  scope: ErasureScope;
  max: number;
  report: DeadLetterErasure;
  kept: string[];
}

async function scan(
  client: SQSClient,
  sdk: typeof import('@aws-sdk/client-sqs'),
  dlqUrl: string,
  waitTimeSeconds: number,
  { scope, max, report, kept }: ScanState,
): Promise<void> {
  while (report.received < max) {
    const output = await client.send(
      new sdk.ReceiveMessageCommand({
        QueueUrl: dlqUrl,
        MaxNumberOfMessages: Math.min(10, max - report.received),
        VisibilityTimeout: SCAN_VISIBILITY_SECONDS,
        WaitTimeSeconds: waitTimeSeconds,
      }),
    );
    const messages = (output.Messages ?? []).filter((message) => message.ReceiptHandle !== undefined);
    if (messages.length === 0) {
      report.complete = report.deleteFailed === 0;
      break;
    }
    report.received += messages.length;
    const doomed: Message[] = [];
    for (const message of messages) {
      const named = namedIdentity(message.Body ?? '');
      if (named === undefined) report.unattributed += 1;
      if (named !== undefined && inScope(named, scope)) doomed.push(message);
      else kept.push(message.ReceiptHandle ?? '');
    }
    if (doomed.length === 0) continue;
    const deleted = await client.send(
      new sdk.DeleteMessageBatchCommand({
        QueueUrl: dlqUrl,
        Entries: doomed.map((message, index) => ({ Id: String(index), ReceiptHandle: message.ReceiptHandle ?? '' })),
      }),
    );
    const removed = deleted.Successful?.length ?? 0;
    report.removed += removed;
    report.deleteFailed += doomed.length - removed;
  }
}

/**
 * Makes the messages the scan kept visible again at once (ChangeMessageVisibilityBatch to 0), so a redrive or the
 * next erase is not held up by the scan. Best effort: a message it cannot release reappears after
 * SCAN_VISIBILITY_SECONDS anyway.
 */
async function release(
  client: SQSClient,
  sdk: typeof import('@aws-sdk/client-sqs'),
  dlqUrl: string,
  receiptHandles: readonly string[],
): Promise<void> {
  for (let start = 0; start < receiptHandles.length; start += 10) {
    const batch = receiptHandles.slice(start, start + 10);
    await client
      .send(
        new sdk.ChangeMessageVisibilityBatchCommand({
          QueueUrl: dlqUrl,
          Entries: batch.map((handle, index) => ({ Id: String(index), ReceiptHandle: handle, VisibilityTimeout: 0 })),
        }),
      )
      .catch(() => undefined);
  }
}

export { type DeadLetterErasure, eraseDeadLetters };
