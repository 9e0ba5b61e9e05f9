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

/**
 * Which client sent a request: the worker runtime's own (the store and `ctx.client`), the client its provider
 * was built on, or any other client in the process (one the job built itself, a shared client module).
 */
type RequestSource = 'runtime' | 'provider' | 'process';

/**
 * One DynamoDB request as it reached the engine boundary (one per HTTP request: an SDK retry is a second entry,
 * so a write whose response was lost and that the SDK sent again is seen twice, as the engine saw it).
 */
interface ObservedRequest {
  readonly seq: number;
  /** The worker it is attributed to (its runtime's clients are labelled; any other client: the one worker running). */
  readonly worker: string;
  readonly source: RequestSource;
  /** The scenario and sample running when it was sent. */
  readonly scenario: string;
  readonly sample: number;
  /** Low-level operation name: PutItem, UpdateItem, TransactWriteItems, … */
  readonly operation: string;
  /** Every table the request names (reads included). */
  readonly tables: readonly string[];
  /** Writes to tables other than the library's own; empty for the external system's storage (class C/D provider). */
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

/**
 * The writes a request makes, classified; an empty list for reads. Writes to `libraryTables` (the payloads
 * table) are the library's, not the job's, and are left out. Pure.
 */
function classifyRequest(
  operation: string,
  body: Record<string, unknown>,
  workTable: string,
  libraryTables: readonly string[] = [],
): { writes: TargetWrite[]; workTable: boolean } {
  const classified = classifyWrites(operation, body, workTable);
  return { ...classified, writes: classified.writes.filter((write) => !libraryTables.includes(write.table)) };
}

function classifyWrites(
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

/** The PartiQL statements of an ExecuteStatement, BatchExecuteStatement or ExecuteTransaction body. */
function statementsOf(body: Record<string, unknown>): string[] {
  return [
    body.Statement,
    ...((body.Statements ?? body.TransactStatements ?? []) as Array<{ Statement?: unknown }>).map((s) => s.Statement),
  ].filter((statement): statement is string => typeof statement === 'string');
}

/** The table a PartiQL statement names. */
function statementTable(statement: string): string {
  return /(?:into|update|from)\s+"?([A-Za-z0-9_.-]+)"?/i.exec(statement)?.[1] ?? '(PartiQL)';
}

/** PartiQL INSERT/UPDATE/DELETE statements carry no fence condition the harness can check: all unfenced. */
function partiqlWrites(body: Record<string, unknown>): TargetWrite[] {
  return statementsOf(body)
    .filter((statement) => /^\s*(insert|update|delete)\b/i.test(statement))
    .map((statement) => ({ table: statementTable(statement), key: undefined, item: undefined, fenced: false }));
}

/** Every table a request names, reads included (TableName, batch and transaction items, PartiQL). Pure. */
function tablesOf(operation: string, body: Record<string, unknown>): string[] {
  const named = new Set<string>();
  if (typeof body.TableName === 'string') named.add(body.TableName);
  for (const table of Object.keys((body.RequestItems ?? {}) as Record<string, unknown>)) named.add(table);
  for (const entry of (body.TransactItems ?? []) as Record<string, { TableName?: unknown }>[]) {
    for (const part of Object.values(entry)) if (typeof part?.TableName === 'string') named.add(part.TableName);
  }
  if (PARTIQL_OPERATIONS.has(operation))
    for (const statement of statementsOf(body)) named.add(statementTable(statement));
  return [...named];
}

export { classifyRequest, type ObservedRequest, type RequestSource, type TargetWrite, tablesOf };
