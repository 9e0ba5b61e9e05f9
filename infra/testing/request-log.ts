import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';

/** One write a DynamoDB request makes to a table other than the work table. */
interface TargetWrite {
  readonly table: string;
  /** The item key when the request names it (Put keys are resolved later from the table's key schema). */
  readonly key: Record<string, unknown> | undefined;
  /** Put items, for resolving their key. */
  readonly item: Record<string, unknown> | undefined;
  /** Carries the writer_epoch fence in its own condition, or rides in a transaction fenced on the work item. */
  readonly fenced: boolean;
}

/** One DynamoDB request as a worker's client sent it (one per logical call; SDK retries are not repeated). */
interface ObservedRequest {
  readonly seq: number;
  /** The worker (client) that sent it. */
  readonly worker: string;
  /** The scenario running when it was sent. */
  readonly scenario: string;
  /** Low-level operation name: PutItem, UpdateItem, TransactWriteItems, … */
  readonly operation: string;
  readonly writes: readonly TargetWrite[];
  /** True when it changed the work table (the library's own state transitions). */
  readonly workTable: boolean;
  /** Settled outcome: landed (the engine accepted it) or the error name; undefined while in flight. */
  outcome: { landed: true } | { landed: false; error: string } | undefined;
}

const WRITE_OPERATIONS = new Set(['PutItem', 'UpdateItem', 'DeleteItem']);
const PARTIQL_OPERATIONS = new Set(['ExecuteStatement', 'BatchExecuteStatement', 'ExecuteTransaction']);

/** The expression with its #name placeholders replaced by attribute names. */
function withNames(expression: unknown, names: unknown): string {
  const map = (names ?? {}) as Record<string, string>;
  return typeof expression === 'string' ? expression.replace(/#[A-Za-z0-9_]+/g, (token) => map[token] ?? token) : '';
}

/** True when a condition references the attribute (as a whole word, after name substitution). */
function conditionMentions(request: Record<string, unknown>, attribute: string): boolean {
  const condition = withNames(request.ConditionExpression, request.ExpressionAttributeNames);
  return new RegExp(`(^|[^A-Za-z0-9_])${attribute}([^A-Za-z0-9_]|$)`).test(condition);
}

function plain(value: unknown): Record<string, unknown> | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  return unmarshall(value as Record<string, AttributeValue>);
}

/** The target write of one Put/Update/Delete request body (undefined for the work table). */
function targetWrite(
  operation: string,
  body: Record<string, unknown>,
  workTable: string,
  inFencedTransaction: boolean,
): TargetWrite | undefined {
  const table = String(body.TableName ?? '');
  if (table === workTable) return undefined;
  return {
    table,
    key: operation === 'PutItem' ? undefined : plain(body.Key),
    item: operation === 'PutItem' ? plain(body.Item) : undefined,
    fenced: inFencedTransaction || conditionMentions(body, 'writer_epoch'),
  };
}

/** A transaction is fenced when it updates or checks the work item under its `fence` attribute. */
function transactionFenced(items: readonly Record<string, Record<string, unknown>>[], workTable: string): boolean {
  return items.some((entry) => {
    const part = entry.Update ?? entry.ConditionCheck;
    return part !== undefined && part.TableName === workTable && conditionMentions(part, 'fence');
  });
}

/** The writes a request makes, classified; an empty list for reads. Pure. */
function classifyRequest(
  operation: string,
  body: Record<string, unknown>,
  workTable: string,
): { writes: TargetWrite[]; workTable: boolean } {
  if (WRITE_OPERATIONS.has(operation)) {
    const write = targetWrite(operation, body, workTable, false);
    return { writes: write ? [write] : [], workTable: write === undefined };
  }
  if (operation === 'TransactWriteItems') {
    const items = (body.TransactItems ?? []) as Record<string, Record<string, unknown>>[];
    const fenced = transactionFenced(items, workTable);
    const writes: TargetWrite[] = [];
    let touchesWork = false;
    for (const entry of items) {
      const [kind, part] = Object.entries(entry)[0] ?? [];
      if (!part || kind === 'ConditionCheck') continue;
      const write = targetWrite(kind === 'Put' ? 'PutItem' : 'UpdateItem', part, workTable, fenced);
      if (write) writes.push(write);
      else touchesWork = true;
    }
    return { writes, workTable: touchesWork };
  }
  if (operation === 'BatchWriteItem') {
    const tables = Object.keys((body.RequestItems ?? {}) as Record<string, unknown>);
    const writes = tables
      .filter((table) => table !== workTable)
      .map((table) => ({ table, key: undefined, item: undefined, fenced: false }));
    return { writes, workTable: tables.includes(workTable) };
  }
  if (PARTIQL_OPERATIONS.has(operation)) return { writes: partiqlWrites(body), workTable: false };
  return { writes: [], workTable: false };
}

/** PartiQL INSERT/UPDATE/DELETE statements carry no fence condition the harness can check: all unfenced. */
function partiqlWrites(body: Record<string, unknown>): TargetWrite[] {
  const statements = [
    body.Statement,
    ...((body.Statements ?? body.TransactStatements ?? []) as Array<{ Statement?: unknown }>).map((s) => s.Statement),
  ].filter((statement): statement is string => typeof statement === 'string');
  return statements
    .filter((statement) => /^\s*(insert|update|delete)\b/i.test(statement))
    .map((statement) => ({
      table: /(?:into|update|from)\s+"?([A-Za-z0-9_.-]+)"?/i.exec(statement)?.[1] ?? '(PartiQL)',
      key: undefined,
      item: undefined,
      fenced: false,
    }));
}

/** The operation name of a client command: `PutItemCommand` ▶ `PutItem`. */
function operationName(commandName: unknown): string {
  return String(commandName ?? 'unknown').replace(/Command$/, '');
}

export { classifyRequest, type ObservedRequest, operationName, type TargetWrite };
