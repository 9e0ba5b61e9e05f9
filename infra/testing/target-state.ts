import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { canonicalJson } from '../../lib/hashing.js';
import type { ObservedRequest } from './request-log.js';

/** The fence's own attributes: a rewrite that changes only these changed no business state. */
const WRITER_ATTRIBUTES = ['writer_epoch', 'writer_seq', 'writer_token', 'writer_op'];

/** Business state of every target record the job tried to write: record id ▶ canonical item (or absent). */
type Fingerprint = Map<string, string>;

/**
 * Reads back the records a job's requests named, so an attempt's effect on its targets can be told from a
 * no-op: two fingerprints differ when a record appeared or a business attribute changed.
 */
class TargetState {
  private readonly keySchemas = new Map<string, string[]>();

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly requests: readonly ObservedRequest[],
  ) {}

  /** The current business state of every target record written so far. */
  async fingerprint(): Promise<Fingerprint> {
    const records = new Map<string, { table: string; key: Record<string, unknown> }>();
    for (const request of this.requests) {
      for (const write of request.writes) {
        const key = write.key ?? (write.item ? await this.keyOf(write.table, write.item) : undefined);
        if (key) records.set(`${write.table}\u0000${canonicalJson(key)}`, { table: write.table, key });
      }
    }
    const fingerprint: Fingerprint = new Map();
    for (const [id, record] of records) {
      const found = await this.client.send(
        new GetCommand({ TableName: record.table, Key: record.key, ConsistentRead: true }),
      );
      fingerprint.set(id, found.Item ? canonicalJson(businessAttributes(found.Item)) : 'absent');
    }
    return fingerprint;
  }

  /** The records (table and key) whose business state differs between two fingerprints. */
  static changes(before: Fingerprint, after: Fingerprint): string[] {
    return [...after]
      .filter(([id, state]) => (before.get(id) ?? 'absent') !== state)
      .map(([id]) => id.replace('\u0000', ' '));
  }

  private async keyOf(table: string, item: Record<string, unknown>): Promise<Record<string, unknown> | undefined> {
    let names = this.keySchemas.get(table);
    if (!names) {
      const described = await this.client.send(new DescribeTableCommand({ TableName: table }));
      names = (described.Table?.KeySchema ?? []).map((element) => String(element.AttributeName));
      this.keySchemas.set(table, names);
    }
    if (names.some((name) => item[name] === undefined)) return undefined;
    return Object.fromEntries(names.map((name) => [name, item[name]]));
  }
}

function businessAttributes(item: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(item).filter(([name]) => !WRITER_ATTRIBUTES.includes(name)));
}

export { type Fingerprint, TargetState };
