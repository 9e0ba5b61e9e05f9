import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { mapBounded } from '../bounded-parallel.js';
import { tenantIdSchema } from '../identity.js';
import { eraseBodyRequest } from '../payloads.js';
import { sendConditional } from '../store/conditional-write.js';
import { KeyPrefix, TableKeys } from '../table.js';
import { parseInput } from '../validation.js';
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
 * Removes the tenant's inline payload bodies (Query on the tenant's partition, one conditional UpdateItem per
 * body, paginated, bounded by `max`). Each body's row stays as a tombstone with the payload hash and no TTL,
 * so the identity stays bound: a different payload afterwards is a PayloadConflictError, nothing stored or
 * sent. Work rows are not touched (identity, hash and fence stay). Writes an audit record with the count.
 * @example
 * const { deleted, complete } = await erasePayloads(deps, { tenantId: 'acme', reason: 'GDPR request 42', actor });
 */
async function erasePayloads(deps: AdminDeps, input: EraseInput): Promise<EraseReport> {
  const valid = parseInput(eraseSchema, input, 'erase');
  const client = deps.store.client;
  let deleted = 0;
  let complete = false;
  let failure: unknown;
  let startKey: Record<string, unknown> | undefined;
  try {
    while (deleted < valid.max) {
      const page = await client.send(
        new QueryCommand({
          TableName: deps.payloadsTable,
          KeyConditionExpression: '#pk = :tenant AND begins_with(#sk, :prefix)',
          // Tombstones (already erased) are skipped, so a repeated erase rewrites nothing.
          FilterExpression: 'attribute_exists(#body)',
          ExpressionAttributeNames: { '#pk': TableKeys.partition, '#sk': TableKeys.sort, '#body': 'body' },
          ExpressionAttributeValues: { ':tenant': valid.tenantId, ':prefix': KeyPrefix.payload },
          ProjectionExpression: '#pk, #sk',
          Limit: Math.min(PAGE_SIZE, valid.max - deleted),
          ...(startKey ? { ExclusiveStartKey: startKey } : {}),
        }),
      );
      const keys = (page.Items ?? []).map((item) => ({ pk: item.pk, sk: item.sk }));
      const now = adminClock(deps).now();
      await mapBounded(keys, DELETES_IN_FLIGHT, async (key) => {
        const outcome = await sendConditional(client, eraseBodyRequest(deps.payloadsTable, key, now));
        if (outcome.ok) deleted += 1;
      });
      startKey = page.LastEvaluatedKey;
      if (!startKey) {
        complete = true;
        break;
      }
    }
  } catch (error) {
    failure = error;
  }
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
