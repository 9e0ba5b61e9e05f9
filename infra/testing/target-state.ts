import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { canonicalJson } from '../../lib/hashing.js';

/** The fence's own attributes: a rewrite that changes only these changed no business state. */
const WRITER_ATTRIBUTES = ['writer_epoch', 'writer_seq', 'writer_token', 'writer_op'];

/** Business state of every item of every target table: `table\u0000key` ▶ canonical item without fence attributes. */
type Fingerprint = Map<string, string>;

/**
 * Reads back the whole business state of the job's target tables, so an attempt's effect can be told from a
 * no-op whoever made it: every table the module declares and every table an observed request named (`tables()`
 * is asked at each fingerprint, so a table first touched later is included from then on), but never the
 * library's own tables. Two fingerprints differ when an item appeared, went, or a business attribute changed.
 */
class TargetState {
  private readonly keySchemas = new Map<string, string[]>();

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: () => Iterable<string>,
    private readonly libraryTables: readonly string[],
  ) {}

  /** The current business state of every item of every target table (a consistent scan of each). */
  async fingerprint(): Promise<Fingerprint> {
    const fingerprint: Fingerprint = new Map();
    for (const table of [...new Set(this.tables())].sort()) {
      if (this.libraryTables.includes(table)) continue;
      const names = await this.keyNames(table);
      if (!names) continue;
      let start: Record<string, unknown> | undefined;
      do {
        const page = await this.client.send(
          new ScanCommand({ TableName: table, ConsistentRead: true, ExclusiveStartKey: start }),
        );
        for (const item of page.Items ?? []) {
          const key = Object.fromEntries(names.map((name) => [name, item[name]]));
          fingerprint.set(`${table}\u0000${canonicalJson(key)}`, canonicalJson(businessAttributes(item)));
        }
        start = page.LastEvaluatedKey;
      } while (start);
    }
    return fingerprint;
  }

  /** The records (table and key) whose business state differs between two fingerprints. */
  static changes(before: Fingerprint, after: Fingerprint): string[] {
    const ids = new Set([...before.keys(), ...after.keys()]);
    return [...ids]
      .filter((id) => (before.get(id) ?? 'absent') !== (after.get(id) ?? 'absent'))
      .map((id) => id.replace('\u0000', ' '));
  }

  /** The table's key attribute names, or undefined when it does not exist (a request named a missing table). */
  private async keyNames(table: string): Promise<string[] | undefined> {
    const known = this.keySchemas.get(table);
    if (known) return known;
    try {
      const described = await this.client.send(new DescribeTableCommand({ TableName: table }));
      const names = (described.Table?.KeySchema ?? []).map((element) => String(element.AttributeName));
      this.keySchemas.set(table, names);
      return names;
    } catch (error) {
      if ((error as Error).name === 'ResourceNotFoundException') return undefined;
      throw error;
    }
  }
}

function businessAttributes(item: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(item).filter(([name]) => !WRITER_ATTRIBUTES.includes(name)));
}

export { type Fingerprint, TargetState };
