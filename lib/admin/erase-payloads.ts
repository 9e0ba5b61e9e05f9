import { DeleteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { mapBounded } from '../bounded-parallel.js';
import { tenantIdSchema } from '../identity.js';
import { KeyPrefix, TableKeys, tenantPartitionKeys } from '../table.js';
import { parseInput } from '../validation.js';
import { writeAuditRecord } from './audit.js';
import type { AdminDeps } from './deps.js';
import { actorSchema, reasonSchema } from './schemas.js';

/** Whose payload bodies to erase, why, who asked, and at most how many in this call. */
interface EraseInput {
  tenantId: string;
  reason: string;
  actor: string;
  max?: number;
}

/** What an erase did; `complete` false means more bodies remain: call again. */
interface EraseReport {
  deleted: number;
  complete: boolean;
  auditId: string;
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
 * Deletes payload bodies of one partition key (Query pages, one DeleteItem per body) until `progress.deleted`
 * reaches `max`; true when the partition has none left. `progress` counts every body gone, even when a later
 * request fails (the caller audits what was erased).
 */
async function erasePartition(
  deps: AdminDeps,
  partitionKey: string,
  max: number,
  progress: { deleted: number },
): Promise<boolean> {
  const client = deps.store.client;
  let startKey: Record<string, unknown> | undefined;
  while (progress.deleted < max) {
    const page = await client.send(
      new QueryCommand({
        TableName: deps.payloadsTable,
        KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
        ExpressionAttributeNames: { '#pk': TableKeys.partition, '#sk': TableKeys.sort },
        ExpressionAttributeValues: { ':pk': partitionKey, ':prefix': KeyPrefix.payload },
        ProjectionExpression: '#pk, #sk',
        Limit: Math.min(PAGE_SIZE, max - progress.deleted),
        ...(startKey ? { ExclusiveStartKey: startKey } : {}),
      }),
    );
    const keys = (page.Items ?? []).map((item) => ({ pk: item.pk, sk: item.sk }));
    await mapBounded(keys, DELETES_IN_FLIGHT, async (key) => {
      await client.send(new DeleteCommand({ TableName: deps.payloadsTable, Key: key }));
      progress.deleted += 1;
    });
    startKey = page.LastEvaluatedKey;
    if (!startKey) return true;
  }
  return false;
}

/**
 * Removes the tenant's inline payload bodies from the payloads table (Query on each of the tenant's partition keys,
 * one DeleteItem per body, paginated, bounded by `max`). Work rows are not touched: identity, payload hash
 * and fence stay as a tombstone, so the fence never restarts. Writes an audit record with the count.
 * @example
 * const { deleted, complete } = await erasePayloads(deps, { tenantId: 'acme', reason: 'GDPR request 42', actor });
 */
async function erasePayloads(deps: AdminDeps, input: EraseInput): Promise<EraseReport> {
  const valid = parseInput(eraseSchema, input, 'erase');
  const progress = { deleted: 0 };
  let complete = false;
  let failure: unknown;
  try {
    complete = true;
    for (const partitionKey of tenantPartitionKeys(valid.tenantId)) {
      complete = await erasePartition(deps, partitionKey, valid.max, progress);
      if (!complete) break;
    }
  } catch (error) {
    complete = false;
    failure = error;
  }
  const { deleted } = progress;
  // Audited even when interrupted: bodies already deleted must be on the record.
  const audit = await writeAuditRecord(deps, {
    actor: valid.actor,
    action: 'erase_payloads',
    reason: valid.reason,
    tenantId: valid.tenantId,
    counts: { deleted, complete: complete ? 1 : 0, ...(failure !== undefined ? { aborted: 1 } : {}) },
  });
  if (failure !== undefined) throw failure;
  return { deleted, complete, auditId: audit.auditId };
}

export { type EraseInput, type EraseReport, erasePayloads };
