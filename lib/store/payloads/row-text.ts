import { sendConditional } from '../driver/conditional-write.js';
import { ExpressionBuilder } from '../driver/expressions.js';
import { sendQuery, type TableClient } from '../driver/plain-requests.js';
import { KeyPrefix, TableKeys } from '../table.js';
import { erasureKeyCondition } from './erasure-bounds.js';

/**
 * The text a work row may hold that came from a job or its payload: the job's `result`, its `errorMessage`, and the
 * result of each durable step. Erasure removes them; identity, hash, state, fence and codes stay (the tombstone).
 */
const ROW_TEXT_ATTRIBUTES = ['result', 'errorMessage'] as const;

/** Set on a work row whose text was erased (when), so an operator sees why a finished row has no result. */
const TEXT_ERASED_ATTRIBUTE = 'textErasedAt';

/** One work row as erasure reads it: its key and which text it still holds. */
interface RowWithText {
  key: { pk: string; sk: string };
  attributes: string[];
  steps: string[];
}

/** What a work row holds that erasure removes (empty lists: nothing). */
function textOf(item: Record<string, unknown>): Pick<RowWithText, 'attributes' | 'steps'> {
  const steps = (item.steps ?? {}) as Record<string, { result?: unknown } | undefined>;
  return {
    attributes: ROW_TEXT_ATTRIBUTES.filter((name) => item[name] !== undefined),
    steps: Object.keys(steps).filter((name) => steps[name]?.result !== undefined),
  };
}

/**
 * One page of the work rows of partition `partitionKey` (a Query, never a Scan; with `operationId`, that operation's
 * row only) that still hold text, at most `limit` rows read; `next` resumes the page.
 */
async function workRowsWithText(
  client: TableClient,
  tableName: string,
  partitionKey: string,
  limit: number,
  startKey?: Record<string, unknown>,
  operationId?: string,
): Promise<{ rows: RowWithText[]; next?: Record<string, unknown> }> {
  const condition = erasureKeyCondition(partitionKey, KeyPrefix.workItem, operationId);
  const page = await sendQuery(client, {
    TableName: tableName,
    KeyConditionExpression: condition.KeyConditionExpression,
    ExpressionAttributeNames: {
      '#pk': TableKeys.partition,
      '#sk': TableKeys.sort,
      '#result': 'result',
      '#errorMessage': 'errorMessage',
      '#steps': 'steps',
    },
    ExpressionAttributeValues: condition.values,
    ProjectionExpression: '#pk, #sk, #result, #errorMessage, #steps',
    Limit: limit,
    ConsistentRead: true,
    ...(startKey ? { ExclusiveStartKey: startKey } : {}),
  });
  const rows = (page.Items ?? [])
    .map((item) => ({ key: { pk: String(item.pk), sk: String(item.sk) }, ...textOf(item) }))
    .filter((row) => row.attributes.length > 0 || row.steps.length > 0);
  return { rows, ...(page.LastEvaluatedKey ? { next: page.LastEvaluatedKey } : {}) };
}

/**
 * The UpdateItem that removes a row's text: conditional on the row existing with each step it names (so it never
 * creates an item and never fails on a path that is gone); state, fence and lease are not touched, so a running
 * holder's fenced writes are unaffected (what it writes after the erase stays: erase again once it finished).
 */
function eraseRowTextRequest(tableName: string, row: RowWithText, now: number) {
  const x = new ExpressionBuilder();
  const stepPaths = row.steps.map((step) => `${x.name('steps')}.${x.segment(step)}`);
  const removals = [
    ...row.attributes.map((name) => x.name(name)),
    ...stepPaths.map((path) => `${path}.${x.name('result')}`),
  ];
  const exists = [
    `attribute_exists(${x.name(TableKeys.partition)})`,
    ...stepPaths.map((path) => `attribute_exists(${path})`),
  ];
  return {
    kind: 'update' as const,
    TableName: tableName,
    Key: row.key,
    UpdateExpression: `SET ${x.name(TEXT_ERASED_ATTRIBUTE)} = ${x.value(now)} REMOVE ${removals.join(', ')}`,
    ConditionExpression: exists.join(' AND '),
    ...x.attributes(),
  };
}

/** Removes one row's text; false when the row or a step it named is gone (nothing written). */
async function eraseRowText(client: TableClient, tableName: string, row: RowWithText, now: number): Promise<boolean> {
  return (await sendConditional(client, eraseRowTextRequest(tableName, row, now))).ok;
}

export {
  eraseRowText,
  eraseRowTextRequest,
  ROW_TEXT_ATTRIBUTES,
  type RowWithText,
  TEXT_ERASED_ATTRIBUTE,
  workRowsWithText,
};
