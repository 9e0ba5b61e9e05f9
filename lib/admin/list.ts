import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { tenantIdSchema } from '../identity.js';
import type { WorkState } from '../states.js';
import { JobsIndex, parkedTenantStateKey, TableKeys } from '../table.js';
import { parseInput } from '../validation.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import type { AdminDeps } from './deps.js';
import { pageLimitSchema, parkedStateSchema } from './schemas.js';
import { type RecordView, recordView } from './views.js';

/** Which parked items to list: one state, optionally one tenant, a page size and where to continue. */
interface ListParkedInput {
  state: WorkState;
  tenantId?: string;
  limit?: number;
  cursor?: string;
}

/** One page of parked records (work items and quarantine records, told apart by `kind`), oldest first. */
interface ParkedPage {
  items: RecordView[];
  cursor?: string;
}

const listSchema = z.strictObject({
  state: parkedStateSchema,
  tenantId: tenantIdSchema.optional(),
  limit: pageLimitSchema.default(25), // default page size
  cursor: z.string().optional(),
});

/**
 * Lists items parked in `state`, oldest first, through the sparse parked indexes (per tenant when
 * `tenantId` is given, else across tenants). One Query per page; the cursor is opaque, bound to this
 * listing and validated before use. Bad input ▶ InvalidInputError naming the field.
 * @example
 * const page = await listParked(deps, { state: 'unknown', tenantId: 'acme', limit: 50 });
 */
async function listParked(deps: AdminDeps, input: ListParkedInput): Promise<ParkedPage> {
  const valid = parseInput(listSchema, input, 'listing');
  const index = valid.tenantId === undefined ? JobsIndex.parkedByState : JobsIndex.parkedByTenant;
  const partitionValue = valid.tenantId === undefined ? valid.state : parkedTenantStateKey(valid.tenantId, valid.state);
  const scope = `${index.name}:${partitionValue}`;
  const keyAttributes = [TableKeys.partition, TableKeys.sort, index.partition, index.sort];
  const startKey = decodeCursor(scope, valid.cursor, keyAttributes, { [index.partition]: partitionValue });
  const output = await deps.store.client.send(
    new QueryCommand({
      TableName: deps.store.table.tableName,
      IndexName: index.name,
      KeyConditionExpression: '#partition = :partition',
      ExpressionAttributeNames: { '#partition': index.partition },
      ExpressionAttributeValues: { ':partition': partitionValue },
      ScanIndexForward: true,
      Limit: valid.limit,
      ...(startKey ? { ExclusiveStartKey: startKey } : {}),
    }),
  );
  const cursor = encodeCursor(scope, output.LastEvaluatedKey);
  return { items: (output.Items ?? []).map(recordView), ...(cursor ? { cursor } : {}) };
}

export { type ListParkedInput, listParked, type ParkedPage };
