import { randomUUID } from 'node:crypto';
import { type DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { JobIdentity } from '../../../lib/identity.js';

/** A charge as the fake payment provider stores it (class C: one per idempotency key). */
interface Charge {
  chargeId: string;
  operationId: string;
  tenantId: string;
  amount: number;
}

/** A run of a job as the workers log it: which operation, under which fence, in which worker. */
interface Run {
  operationId: string;
  fence: number;
  caller: string;
}

/**
 * The external systems of the reliability suite, kept in a DynamoDB table so that every worker process
 * sees the same ones and the test counts effects after the fact:
 * - a payment provider with idempotency keys and lookup (class C): every call is logged, and one charge is
 *   created per key with a conditional put, in the partition of the calling tenant;
 * - a mailer with no key and no lookup (class D): every send is appended to a log, one row per effect;
 * - where a test asks for it, a log of job runs (operation, fence, worker): a witness, not an effect.
 */
class EffectLedger {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** Charges once per key: logs the call, creates the charge unless the key has one, returns the charge. */
  async charge(idempotencyKey: string, identity: JobIdentity, amount: number, caller: string): Promise<Charge> {
    await this.append(`call#${identity.tenantId}`, identity.operationId, { caller, idempotencyKey });
    const charge: Charge = { chargeId: `ch_${randomUUID().slice(0, 12)}`, ...identity, amount };
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { pk: `charge#${identity.tenantId}`, sk: idempotencyKey, ...charge },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return charge;
    } catch (error) {
      if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
      const existing = await this.lookupCharge(identity.tenantId, idempotencyKey);
      if (!existing) throw error;
      return existing;
    }
  }

  /** The charge made under `idempotencyKey` for `tenantId`, if any (the provider's lookup). */
  async lookupCharge(tenantId: string, idempotencyKey: string): Promise<Charge | undefined> {
    const output = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { pk: `charge#${tenantId}`, sk: idempotencyKey },
        ConsistentRead: true,
      }),
    );
    return output.Item as Charge | undefined;
  }

  /** Sends one mail: an effect that can be neither deduplicated nor looked up. */
  async sendMail(identity: JobIdentity, caller: string): Promise<void> {
    await this.append(`mail#${identity.tenantId}`, identity.operationId, { caller });
  }

  /** Logs that a run of `identity` started under `fence` in `caller` (not an effect: a witness of claims). */
  async logRun(identity: JobIdentity, fence: number, caller: string): Promise<void> {
    await this.append(`run#${identity.tenantId}`, identity.operationId, { caller, fence });
  }

  /** Runs per operation id of one tenant (only where the workers log them). */
  async runsByOperation(tenantId: string): Promise<Map<string, Run[]>> {
    const rows = (await this.partition(`run#${tenantId}`)) as unknown as Run[];
    return groupBy(rows, (row) => row.operationId);
  }

  /** Charges per operation id of one tenant. */
  async chargesByOperation(tenantId: string): Promise<Map<string, Charge[]>> {
    const rows = (await this.partition(`charge#${tenantId}`)) as unknown as Charge[];
    return groupBy(rows, (row) => row.operationId);
  }

  /** Provider calls per operation id of one tenant (including calls that found an existing charge). */
  async callsByOperation(tenantId: string): Promise<Map<string, unknown[]>> {
    return groupBy(await this.partition(`call#${tenantId}`), (row) => String(row.operationId));
  }

  /** Mails per operation id of one tenant. */
  async mailsByOperation(tenantId: string): Promise<Map<string, unknown[]>> {
    return groupBy(await this.partition(`mail#${tenantId}`), (row) => String(row.operationId));
  }

  private async append(pk: string, operationId: string, fields: Record<string, unknown>): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { pk, sk: `${operationId}#${randomUUID()}`, operationId, at: Date.now(), ...fields },
      }),
    );
  }

  private async partition(pk: string): Promise<Record<string, unknown>[]> {
    const rows: Record<string, unknown>[] = [];
    let startKey: Record<string, unknown> | undefined;
    for (let page = 0; page < 1_000; page += 1) {
      const output = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': pk },
          ConsistentRead: true,
          ...(startKey ? { ExclusiveStartKey: startKey } : {}),
        }),
      );
      rows.push(...(output.Items ?? []));
      startKey = output.LastEvaluatedKey;
      if (!startKey) break;
    }
    return rows;
  }
}

function groupBy<T>(rows: readonly T[], key: (row: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) groups.set(key(row), [...(groups.get(key(row)) ?? []), row]);
  return groups;
}

export { type Charge, EffectLedger, type Run };
