import { isDeepStrictEqual } from 'node:util';
import { CreateTableCommand, DeleteTableCommand, DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import type { SQSClient } from '@aws-sdk/client-sqs';
import {
  BatchGetCommand,
  type BatchGetCommandInput,
  type BatchGetCommandOutput,
  type DynamoDBDocumentClient,
  QueryCommand,
} from '@aws-sdk/lib-dynamodb';
import { examplesTableDefinition } from '../../../../examples/jobs/examples-table.js';
import { parkedStateKeys } from '../../../../lib/store/parked/parked-keys.js';
import { deadlineShardName, JobsIndex, jobsTableDefinition, workItemKey } from '../../../../lib/store/table.js';
import type { WorkItem } from '../../../../lib/store/work-items/work-item.js';
import { uniqueName } from '../../../support/engine.js';
import { emptyReplayTally, HistoryRecorder, type ReplayTally, replayHistories } from '../replay/history.js';
import { loadModelRelation, type ModelRelation } from '../replay/relation.js';
import { type ApprovalTally, emptyApprovalTally, tallyApproval } from './approval-invariants.js';
import { IDENTITY_COUNT, identityOf, type RunPlan, targetClassOf, touched } from './commands.js';
import { checkAgainstModel, fail, InvariantOracle, type Observation, observedIds } from './invariants.js';
import { RealSystem, RUN_SHARDS, recordRef } from './real-system.js';
import { ReferenceModel } from './reference-model.js';
import { eventsOf, holderFenceOf } from './replay-events.js';

/** Clients shared by every run of a test file. */
interface InterleavingEnvironment {
  client: DynamoDBDocumentClient;
  sqs: SQSClient;
  queueUrl: string;
}

const RUN_START = Date.UTC(2026, 0, 1);

/** The model's step relation, read once per test file. */
let relation: ModelRelation | undefined;

/**
 * Runs one generated plan on fresh tables: every command goes to the model and to the engine, the outcomes
 * must agree, and the invariants are checked on what the engine holds after every step; the indexes are
 * checked at the end. What the approval gate did is added to `approvals`. Each identity's history (its row after
 * every command, with the command's model events) is replayed at the end through the model's step relation
 * (model/transitions.json) and added to `replay`. Returns the number of commands executed. Throws
 * InvariantViolation on the first break, or when an observed step is not a step of the model.
 */
async function runInterleaving(
  plan: RunPlan,
  env: InterleavingEnvironment,
  approvals: ApprovalTally = emptyApprovalTally(),
  replay: ReplayTally = emptyReplayTally(),
): Promise<number> {
  const jobsTable = uniqueName('lf-model-jobs');
  const recordsTable = uniqueName('lf-model-records');
  await env.client.send(new CreateTableCommand(jobsTableDefinition(jobsTable)));
  // A plain pk/sk table, the same shape as the example jobs' records table.
  await env.client.send(new CreateTableCommand(examplesTableDefinition(recordsTable)));
  // dynalite answers item requests with ResourceNotFound until its 0 ms CREATING timer has run.
  await untilActive(env.client, [jobsTable, recordsTable]);
  try {
    const model = new ReferenceModel(RUN_START, plan.skews);
    const real = new RealSystem({ ...env, jobsTable, recordsTable }, RUN_START, plan.skews);
    const oracle = new InvariantOracle();
    const histories = new HistoryRecorder();
    const observe = (ids: readonly number[]) => observeAll(env.client, jobsTable, recordsTable, ids);
    for (const [step, command] of plan.commands.entries()) {
      // A race has no single prediction: the model settles it from what the engine reported (one order must fit).
      const predicted = command.kind === 'race' ? undefined : model.apply(command);
      const actual = await real.apply(command);
      const expected = command.kind === 'race' ? model.settleRace(command, actual) : predicted;
      if (!isDeepStrictEqual(actual, expected)) {
        const rule =
          command.kind === 'race' ? 'a race has the outcomes of one serial order' : 'outcome matches the model';
        fail(step, rule, { command, expected, actual });
      }
      tallyApproval(approvals, command, actual);
      const observed = await observe(observedIds(touched(command)));
      oracle.check(step, command, actual, real.lastHolderFence, observed, real.lastHolderClock);
      const holderFence = holderFenceOf(command, actual, real.lastHolderFence);
      for (const [id, now] of observed)
        histories.observe(`${id}`, targetClassOf(id), eventsOf(command, actual, id), now.item, holderFence);
      for (const [id, now] of observed) checkAgainstModel(step, id, model.items[id], model.records[id] ?? {}, now);
    }
    const end = plan.commands.length;
    const all = await observe(Array.from({ length: IDENTITY_COUNT }, (_, id) => id));
    for (const [id, now] of all) checkAgainstModel(end, id, model.items[id], model.records[id] ?? {}, now);
    await checkIndexes(env.client, jobsTable, end, model);
    const illegalBefore = replay.illegal.length;
    relation ??= loadModelRelation();
    replayHistories(relation, histories.all(), replay);
    if (replay.illegal.length > illegalBefore)
      fail(end, 'every observed step is a step of the model', replay.illegal.slice(illegalBefore));
    return plan.commands.length;
  } finally {
    await env.client.send(new DeleteTableCommand({ TableName: jobsTable }));
    await env.client.send(new DeleteTableCommand({ TableName: recordsTable }));
  }
}

/** Waits (bounded) until every table reports ACTIVE. */
async function untilActive(client: DynamoDBDocumentClient, tableNames: readonly string[]): Promise<void> {
  for (const TableName of tableNames) {
    for (let attempt = 0; ; attempt += 1) {
      const described = await client.send(new DescribeTableCommand({ TableName }));
      if (described.Table?.TableStatus === 'ACTIVE') break;
      if (attempt === 100) throw new Error(`table ${TableName} never became ACTIVE`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
}

/** Items and records of `ids` in one consistent BatchGetItem (re-sent for unprocessed keys, bounded). */
async function observeAll(
  client: DynamoDBDocumentClient,
  jobsTable: string,
  recordsTable: string,
  ids: readonly number[],
): Promise<Map<number, Observation>> {
  const found = new Map<string, Record<string, unknown>>();
  if (ids.length === 0) return new Map();
  let request: BatchGetCommandInput['RequestItems'] = {
    [jobsTable]: { Keys: ids.map((id) => workItemKey(identityOf(id))), ConsistentRead: true },
    [recordsTable]: { Keys: ids.map((id) => recordRef(recordsTable, id).key), ConsistentRead: true },
  };
  for (let attempt = 0; request && Object.keys(request).length > 0; attempt += 1) {
    if (attempt === 20) throw new Error('BatchGetItem left keys unprocessed');
    const output: BatchGetCommandOutput = await client.send(new BatchGetCommand({ RequestItems: request }));
    for (const rows of Object.values(output.Responses ?? {}))
      for (const row of rows) found.set(`${row.pk}|${row.sk}`, row);
    request = output.UnprocessedKeys;
  }
  const observed = new Map<number, Observation>();
  for (const id of ids) {
    const itemKey = workItemKey(identityOf(id));
    const { key } = recordRef(recordsTable, id);
    observed.set(id, {
      item: found.get(`${itemKey.pk}|${itemKey.sk}`) as WorkItem | undefined,
      record: found.get(`${key.pk}|${key.sk}`),
    });
  }
  return observed;
}

/** Every identity sits in exactly the index partitions its state calls for: one parked state, or the deadlines. */
async function checkIndexes(client: DynamoDBDocumentClient, tableName: string, step: number, model: ReferenceModel) {
  const query = async (index: { name: string; partition: string }, value: string) => {
    const output = await client.send(
      new QueryCommand({
        TableName: tableName,
        IndexName: index.name,
        KeyConditionExpression: '#p = :p',
        ExpressionAttributeNames: { '#p': index.partition },
        ExpressionAttributeValues: { ':p': value },
      }),
    );
    return (output.Items ?? []).map((item) => `${item.tenantId}/${item.operationId}`).sort();
  };
  const expectedIn = (states: string[]) =>
    model.items
      .map((item, id) =>
        item && states.includes(item.state) ? `${identityOf(id).tenantId}/${identityOf(id).operationId}` : '',
      )
      .filter(Boolean)
      .sort();
  for (const state of ['unknown', 'quarantined', 'failed_terminal', 'awaiting_approval']) {
    const shards = await Promise.all(parkedStateKeys(state).map((key) => query(JobsIndex.parkedByState, key)));
    const listed = shards.flat().sort();
    if (!isDeepStrictEqual(listed, expectedIn([state])))
      fail(step, `parked index lists exactly the ${state} items`, listed);
  }
  const deadlines: string[] = [];
  for (let shard = 0; shard < RUN_SHARDS; shard += 1)
    deadlines.push(...(await query(JobsIndex.byDeadline, deadlineShardName(shard))));
  if (!isDeepStrictEqual(deadlines.sort(), expectedIn(['queued', 'claimed', 'awaiting_approval']))) {
    fail(step, 'deadline index lists exactly the queued, claimed and awaiting items', deadlines);
  }
}

export { type InterleavingEnvironment, runInterleaving, untilActive };
