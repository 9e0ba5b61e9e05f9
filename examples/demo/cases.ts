import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { DemoEnvironment } from '../../infra/local/demo-types.js';
import type { JobIdentity } from '../../lib/identity.js';
import { idempotencyKeyFor } from '../../lib/worker/job-context.js';
import { statementRecordKey } from '../jobs/statement-publication.js';

/** One example operation of the demo: what to send, and how to count its side effect at the target. */
interface DemoCase {
  jobType: string;
  /** As declared by the job type, with what a reader should know about it. */
  targetClass: string;
  identity: JobIdentity;
  payload: Record<string, unknown>;
  sideEffectKind: string;
  /** Sets up the target before the job runs (e.g. a stock count). */
  prepare?: (env: DemoEnvironment) => Promise<void>;
  /** Counts the side effects of this operation where they landed, and describes the target record. */
  inspect: (env: DemoEnvironment) => Promise<{ sideEffects: number; detail: string }>;
}

/** One record of the examples table, read strongly consistent. */
async function read(env: DemoEnvironment, key: { pk: string; sk: string }) {
  const output = await env.client.send(
    new GetCommand({ TableName: env.tables.examples, Key: key, ConsistentRead: true }),
  );
  return output.Item;
}

/** Refund settlement (class C + B): counts the refunds the simulated gateway created under the operation's key. */
function refundCase(operationId: string): DemoCase {
  const identity = { tenantId: 'm_4471', operationId };
  return {
    jobType: 'refund-settlement',
    targetClass: 'C+B',
    identity,
    payload: { merchantId: 'm_4471', amount: 70.25, currency: 'EUR' },
    sideEffectKind: 'gateway refunds',
    inspect: async (env) => {
      const found = await env.client.send(
        new QueryCommand({
          TableName: env.tables.examples,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': `gateway#${idempotencyKeyFor(identity)}` },
          Select: 'COUNT',
          ConsistentRead: true,
        }),
      );
      const row = await read(env, { pk: `refund#${identity.tenantId}#${operationId}`, sk: 'refund' });
      return {
        sideEffects: found.Count ?? 0,
        detail: row
          ? `refund row ${String(row.status)}, last written under fence ${String(row.writer_epoch)}`
          : 'no refund row',
      };
    },
  };
}

/** Statement publication (class B): counts the current-statement pointers of the operation (0 or 1). */
function statementCase(operationId: string, accountId: string): DemoCase {
  const identity = { tenantId: 'bank-eu', operationId };
  const date = '2026-09-13';
  return {
    jobType: 'statement-publication',
    targetClass: 'B',
    identity,
    payload: { accountId, date, lines: 12 },
    sideEffectKind: 'current statement pointer',
    inspect: async (env) => {
      const pointer = await read(env, { pk: statementRecordKey(identity), sk: 'pointer' });
      return {
        sideEffects: pointer ? 1 : 0,
        detail: pointer ? `pointer written under fence ${String(pointer.writer_epoch)}` : 'no pointer',
      };
    },
  };
}

/** Inventory reservation (class A): counts how many times the quantity left the stock count. */
function inventoryCase(operationId: string, sku: string): DemoCase {
  const identity = { tenantId: 'shop-1', operationId };
  const initial = 10;
  const quantity = 3;
  const key = { pk: `inventory#${identity.tenantId}#${sku}`, sk: 'stock' };
  return {
    jobType: 'inventory-reservation',
    targetClass: 'A',
    identity,
    payload: { sku, quantity },
    sideEffectKind: 'stock decrements',
    prepare: async (env) => {
      await env.client.send(new PutCommand({ TableName: env.tables.examples, Item: { ...key, available: initial } }));
    },
    inspect: async (env) => {
      const available = Number((await read(env, key))?.available ?? initial);
      return { sideEffects: (initial - available) / quantity, detail: `stock ${initial} → ${available}` };
    },
  };
}

export { type DemoCase, inventoryCase, refundCase, statementCase };
