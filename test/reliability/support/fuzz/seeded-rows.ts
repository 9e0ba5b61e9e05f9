import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { parseIdentity, type ValidIdentity } from '../../../../lib/identity.js';
import { WORK_STATES } from '../../../../lib/states.js';
import { tenantPartitionKeys } from '../../../../lib/store/table.js';
import { readRawItem } from '../../../support/expectations.js';
import { putWorkItem } from '../../../support/factories.js';

/** Rows that exist before a fuzz campaign, one per state, and their stored bytes. */
interface SeededRows {
  identities: ValidIdentity[];
  operations: string[];
  /** The raw stored item of each seeded identity, in order. */
  snapshot(): Promise<Array<Record<string, AttributeValue> | undefined>>;
  /** Sort keys of every work row in the tenant's partition (a Query, not a Scan). */
  workRows(): Promise<string[]>;
}

const HOUR = 3_600_000;

/**
 * Seeds one work row per state for `tenantId`, none of which any valid message may legitimately change
 * at `now`: finished states, a claim with a live lease, and a queued item not due for an hour.
 */
async function seedRowsInEveryState(
  client: DynamoDBDocumentClient,
  tableName: string,
  tenantId: string,
  now: number,
): Promise<SeededRows> {
  const identities: ValidIdentity[] = [];
  for (const state of WORK_STATES) {
    const identity = parseIdentity({ tenantId, operationId: `seeded-${state}` });
    const overrides =
      state === 'queued'
        ? { availableAt: now + HOUR, deadlineAt: now + HOUR }
        : state === 'claimed'
          ? { leaseExpiresAt: now + HOUR, deadlineAt: now + HOUR }
          : {};
    await putWorkItem(client, tableName, { identity, state, now, overrides });
    identities.push(identity);
  }
  return {
    identities,
    operations: identities.map((identity) => identity.operationId),
    snapshot: () => Promise.all(identities.map((identity) => readRawItem(client, tableName, identity))),
    workRows: async () => {
      const rows: string[] = [];
      for (const partitionKey of tenantPartitionKeys(tenantId)) {
        let startKey: Record<string, unknown> | undefined;
        for (let page = 0; page < 1_000; page += 1) {
          const output = await client.send(
            new QueryCommand({
              TableName: tableName,
              KeyConditionExpression: 'pk = :pk AND begins_with(sk, :work)',
              ExpressionAttributeValues: { ':pk': partitionKey, ':work': 'op#' },
              ConsistentRead: true,
              ...(startKey ? { ExclusiveStartKey: startKey } : {}),
            }),
          );
          rows.push(...(output.Items ?? []).map((item) => String(item.sk)));
          startKey = output.LastEvaluatedKey;
          if (!startKey) break;
        }
      }
      return rows.sort();
    },
  };
}

export { type SeededRows, seedRowsInEveryState };
