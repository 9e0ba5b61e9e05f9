import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';

/** A refund as the simulated provider stores it. */
interface GatewayRefund {
  refundId: string;
  amount: number;
  currency: string;
}

/**
 * A stand-in for a payment provider with idempotency keys and lookup by key (class C), kept in the examples
 * table so the example runs the same locally and on AWS: the first request per key creates the refund; the
 * same key again returns it. Each created item is one real side effect — the demo counts them.
 */
class SimulatedGateway {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** Creates the refund once per idempotency key; a repeat returns the first one. */
  async refund(idempotencyKey: string, request: Omit<GatewayRefund, 'refundId'>): Promise<GatewayRefund> {
    const created: GatewayRefund = { refundId: `gw_${idempotencyKey.slice(-12)}`, ...request };
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { pk: `gateway#${idempotencyKey}`, sk: 'refund', ...created },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return created;
    } catch (error) {
      if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
      const existing = await this.lookup(idempotencyKey);
      if (!existing) throw error;
      return existing;
    }
  }

  /** Finds the refund made under an idempotency key, if any. */
  async lookup(idempotencyKey: string): Promise<GatewayRefund | undefined> {
    const found = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { pk: `gateway#${idempotencyKey}`, sk: 'refund' },
        ConsistentRead: true,
      }),
    );
    if (!found.Item) return undefined;
    return {
      refundId: String(found.Item.refundId),
      amount: Number(found.Item.amount),
      currency: String(found.Item.currency),
    };
  }
}

export { type GatewayRefund, SimulatedGateway };
