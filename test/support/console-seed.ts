import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { WorkState } from '../../lib/states.js';
import { recordQuarantine } from '../../lib/store/records/quarantine.js';
import type { AttemptRecord } from '../../lib/store/work-items/attempt-history.js';
import type { WorkItem } from '../../lib/store/work-items/work-item.js';
import { putWorkItem } from './factories.js';

const MINUTE = 60_000;

/** One seeded row: identity, state, job type, how long ago it settled, and what else it carries. */
interface SeedRow {
  tenantId: string;
  operationId: string;
  state: WorkState;
  jobType: string;
  agoMs: number;
  overrides?: Partial<WorkItem>;
}

/** Three attempts of one job: two timeouts, then a lost lease the sweeper parked as unknown. */
function troubledHistory(now: number): AttemptRecord[] {
  const start = now - 47 * MINUTE;
  return [
    { f: 1, o: 'worker-7f3a', s: start, e: start + 31_000, r: 'provider_timeout' },
    { f: 2, o: 'worker-2c91', s: start + 2 * MINUTE, e: start + 2 * MINUTE + 30_500, r: 'provider_timeout' },
    { f: 3, o: 'worker-7f3a', s: start + 6 * MINUTE, e: start + 7 * MINUTE, r: 'lease_expired_attempts_exhausted' },
  ];
}

/**
 * Puts a realistic operator's view into a jobs table: parked items of several tenants and ages, a tenant's
 * succeeded and cancelled jobs, a quarantine record that carried an identity. Returns the unknown item with history.
 */
async function seedConsoleData(client: DynamoDBDocumentClient, tableName: string, now: number): Promise<WorkItem> {
  const rows: SeedRow[] = [
    {
      tenantId: 'm_4471',
      operationId: 'refund-r_815',
      state: 'unknown',
      jobType: 'refund-settlement',
      agoMs: 40 * MINUTE,
    },
    {
      tenantId: 'acme',
      operationId: 'refund-r_902',
      state: 'unknown',
      jobType: 'refund-settlement',
      agoMs: 12 * MINUTE,
    },
    {
      tenantId: 'acme',
      operationId: 'stmt-2026-11-41',
      state: 'failed_terminal',
      jobType: 'statement-publication',
      agoMs: 3 * 60 * MINUTE,
    },
    {
      tenantId: 'globex',
      operationId: 'reserve-o_1138',
      state: 'quarantined',
      jobType: 'inventory-reservation',
      agoMs: 25 * MINUTE,
    },
    {
      tenantId: 'acme',
      operationId: 'refund-r_877',
      state: 'succeeded',
      jobType: 'refund-settlement',
      agoMs: 5 * MINUTE,
    },
    {
      tenantId: 'acme',
      operationId: 'refund-r_878',
      state: 'succeeded',
      jobType: 'refund-settlement',
      agoMs: 4 * MINUTE,
    },
    {
      tenantId: 'acme',
      operationId: 'stmt-2026-11-40',
      state: 'succeeded',
      jobType: 'statement-publication',
      agoMs: 9 * MINUTE,
    },
    {
      tenantId: 'acme',
      operationId: 'refund-r_880',
      state: 'cancelled',
      jobType: 'refund-settlement',
      agoMs: 2 * MINUTE,
    },
  ];
  let troubled: WorkItem | undefined;
  for (const row of rows) {
    const at = now - row.agoMs;
    const isTroubled = row.operationId === 'refund-r_815';
    const item = await putWorkItem(client, tableName, {
      identity: { tenantId: row.tenantId, operationId: row.operationId },
      state: row.state,
      now: at,
      overrides: {
        jobType: row.jobType,
        createdAt: at - 8 * MINUTE,
        ...(row.state === 'succeeded'
          ? { outcomeCode: 'refunded', fence: 1, ah: [{ f: 1, o: 'worker-2c91', s: at - 900, e: at, r: 'refunded' }] }
          : {}),
        ...(row.state === 'failed_terminal'
          ? { errorCode: 'account_closed', errorMessage: 'the account was closed before publication', fence: 2 }
          : {}),
        ...(row.state === 'unknown'
          ? { errorCode: 'gateway_response_lost', errorMessage: 'the refund request was sent; its response never came' }
          : {}),
        ...(row.state === 'quarantined'
          ? { errorCode: 'payload_schema', errorMessage: 'payload failed its schema at sku: invalid_type' }
          : {}),
        ...(isTroubled
          ? {
              fence: 4,
              attempts: 3,
              errorCode: 'lease_expired_attempts_exhausted',
              errorMessage: 'the last attempt lost its lease and no attempts remain; outcome unconfirmed',
              ah: troubledHistory(now),
              steps: { 'provider.refund': { fence: 3, at: now - 42 * MINUTE } },
            }
          : {}),
        ...row.overrides,
      },
    });
    if (isTroubled) troubled = item;
  }
  await recordQuarantine(
    client,
    tableName,
    { now: () => now - 18 * MINUTE },
    {
      messageId: '7c1e0f4a-3b2d-4e8f-9a61-0d5c2b7e9f13',
      body: '{"v":2,"tenantId":"globex","operationId":"reserve-o_1201"}',
      reason: 'unsupported_version',
      detail: 'envelope version 2 is not 1',
      tenantId: 'globex',
      operationId: 'reserve-o_1201',
    },
  );
  if (!troubled) throw new Error('seed lost its unknown item');
  return troubled;
}

export { seedConsoleData };
