// Which DynamoDB requests write which tables, and whether a write is fenced: one home for the conformance harness
// (at the engine boundary) and the deployed worker's fault layer (at its client's middleware).
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

/** The work item's completion: a write of the work table that sets the state to succeeded. Pure. */
function isCompletion(operation: string, body: Record<string, unknown>, workTable: string): boolean {
  const text = JSON.stringify(body);
  if (!text.includes('"succeeded"')) return false;
  if (operation === 'UpdateItem') return body.TableName === workTable;
  return operation === 'TransactWriteItems' && text.includes(JSON.stringify(workTable));
}

export { classifyRequest, isCompletion, type TargetWrite, tablesOf };
