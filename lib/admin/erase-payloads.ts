import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { tenantIdSchema } from '../identity.js';
import { mapBounded } from '../internal/bounded-parallel.js';
import { parseInput } from '../internal/validation.js';
import { sendConditional } from '../store/conditional-write.js';
import { eraseBodyRequest } from '../store/payloads.js';
import { eraseRowText, workRowsWithText } from '../store/row-text.js';
import { KeyPrefix, TableKeys, tenantPartitionKeys } from '../store/table.js';
import { writeAuditRecord } from './audit.js';
import { type AdminDeps, adminClock } from './deps.js';
import { actorSchema, reasonSchema } from './schemas.js';

/** Whose payload bodies to erase, why, who asked, and at most how many in this call. */
interface EraseInput {
  tenantId: string;
  reason: string;
  actor: string;
  max?: number;
}

/** What an erase did; `complete` false means more bodies or row text remain: call again. */
interface EraseReport {
  /** Payload bodies erased (each row of the payloads table becomes a tombstone). */
  deleted: number;
  /** Work rows whose result, error message and step results were removed. */
  cleared: number;
  complete: boolean;
  auditId: string;
}

/** Writes one erase call has made so far (bodies and rows together are bounded by `max`). */
interface EraseProgress {
  deleted: number;
  cleared: number;
}

function written(progress: EraseProgress): number {
  return progress.deleted + progress.cleared;
}

const eraseSchema = z.strictObject({
  tenantId: tenantIdSchema,
  reason: reasonSchema,
  actor: actorSchema,
  max: z.number().int().min(1).max(100_000).default(10_000),
});

const PAGE_SIZE = 100;
const DELETES_IN_FLIGHT = 10;

/**
 * Erases the bodies of one partition key (Query pages of bodies not yet erased, one conditional UpdateItem
 * each) until `max` writes were made; true when the partition has none left. `progress` counts every
 * body erased, even when a later request fails (the caller audits what was erased).
 */
async function erasePartition(
  deps: AdminDeps,
  partitionKey: string,
  max: number,
  progress: EraseProgress,
): Promise<boolean> {
  const client = deps.store.client;
  let startKey: Record<string, unknown> | undefined;
  while (written(progress) < max) {
    const page = await client.send(
      new QueryCommand({
        TableName: deps.payloadsTable,
        KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
        // Tombstones (already erased) are skipped, so a repeated erase rewrites nothing.
        FilterExpression: 'attribute_exists(#body)',
        ExpressionAttributeNames: { '#pk': TableKeys.partition, '#sk': TableKeys.sort, '#body': 'body' },
        ExpressionAttributeValues: { ':pk': partitionKey, ':prefix': KeyPrefix.payload },
        ProjectionExpression: '#pk, #sk',
        Limit: Math.min(PAGE_SIZE, max - written(progress)),
        ...(startKey ? { ExclusiveStartKey: startKey } : {}),
      }),
    );
    const keys = (page.Items ?? []).map((item) => ({ pk: item.pk, sk: item.sk }));
    const now = adminClock(deps).now();
    await mapBounded(keys, DELETES_IN_FLIGHT, async (key) => {
      const outcome = await sendConditional(client, eraseBodyRequest(deps.payloadsTable, key, now));
      if (outcome.ok) progress.deleted += 1;
    });
    startKey = page.LastEvaluatedKey;
    if (!startKey) return true;
  }
  return false;
}

/**
 * Removes the text of the work rows of one partition key (result, error message, step results: a job's result
 * or an error can quote its payload) until `max` writes were made; true when the partition has none left.
 */
async function clearPartitionText(
  deps: AdminDeps,
  partitionKey: string,
  max: number,
  progress: EraseProgress,
): Promise<boolean> {
  const { client, table } = deps.store;
  let startKey: Record<string, unknown> | undefined;
  while (written(progress) < max) {
    const page = await workRowsWithText(client, table.tableName, partitionKey, PAGE_SIZE, startKey);
    const rows = page.rows.slice(0, max - written(progress));
    const now = adminClock(deps).now();
    await mapBounded(rows, DELETES_IN_FLIGHT, async (row) => {
      if (await eraseRowText(client, table.tableName, row, now)) progress.cleared += 1;
    });
    // A page cut short by `max` is read again next call (rows already cleared no longer match).
    if (rows.length < page.rows.length) return false;
    startKey = page.next;
    if (!startKey) return true;
  }
  return false;
}

/**
 * Removes the tenant's inline payload bodies (Query on each of the tenant's partition keys, one conditional
 * UpdateItem per body, paginated, bounded by `max`). Each body's row stays as a tombstone with the payload
 * hash and no TTL, so the identity stays bound: a different payload afterwards is a PayloadConflictError,
 * nothing stored or sent. The tenant's work rows lose their text (result, error message, step results) and keep
 * identity, hash, state, codes and fence. `max` bounds the writes of one call (bodies and rows). Writes an audit
 * record with the counts.
 * @example
 * const { deleted, complete } = await erasePayloads(deps, { tenantId: 'acme', reason: 'GDPR request 42', actor });
 */
async function erasePayloads(deps: AdminDeps, input: EraseInput): Promise<EraseReport> {
  const valid = parseInput(eraseSchema, input, 'erase');
  const progress: EraseProgress = { deleted: 0, cleared: 0 };
  let complete = false;
  let failure: unknown;
  try {
    for (const partitionKey of tenantPartitionKeys(valid.tenantId)) {
      complete =
        (await erasePartition(deps, partitionKey, valid.max, progress)) &&
        (await clearPartitionText(deps, partitionKey, valid.max, progress));
      if (!complete) break;
    }
  } catch (error) {
    complete = false;
    failure = error;
  }
  const { deleted, cleared } = progress;
  // Audited even when interrupted: bodies already deleted must be on the record.
  const audit = await writeAuditRecord(deps, {
    actor: valid.actor,
    action: 'erase_payloads',
    reason: valid.reason,
    tenantId: valid.tenantId,
    counts: { deleted, cleared, complete: complete ? 1 : 0, ...(failure !== undefined ? { aborted: 1 } : {}) },
  });
  if (failure !== undefined) throw failure;
  return { deleted, cleared, complete, auditId: audit.auditId };
}

export { type EraseInput, type EraseReport, erasePayloads };
