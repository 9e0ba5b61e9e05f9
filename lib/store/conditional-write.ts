import {
  ConditionalCheckFailedException,
  type DynamoDBClient,
  PutItemCommand,
  type PutItemCommandInput,
  UpdateItemCommand,
  type UpdateItemCommandInput,
} from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  type PutCommandInput,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { type marshallOptions, unmarshall } from '@aws-sdk/util-dynamodb';
import { toAttributeMap } from './attribute-values.js';

/** Result of a conditional write: the attributes it returned, or the item as it stood when the condition failed. */
type ConditionalOutcome =
  | { ok: true; attributes: Record<string, unknown> | undefined }
  | { ok: false; current: Record<string, unknown> | undefined };

// Both client kinds send plain commands, but the overloads of their send methods do not unify.
type PlainSender = Pick<DynamoDBClient, 'send'>;

/** A conditional Put or Update in DocumentClient form (plain values); `readKey` finds a put's item in a table not keyed `pk`/`sk`. */
type ConditionalRequest =
  | ({ kind: 'put'; readKey?: Record<string, unknown> } & PutCommandInput)
  | ({ kind: 'update' } & UpdateCommandInput);

/**
 * Sends one conditional Put or Update. A failed condition is not thrown: the current item comes back,
 * from ReturnValuesOnConditionCheckFailure when the engine returns it, else from one consistent GetItem
 * (dynalite ignores that parameter). Every other error propagates unchanged.
 */
async function sendConditional(
  client: DynamoDBDocumentClient,
  request: ConditionalRequest,
): Promise<ConditionalOutcome> {
  const translate = client.config?.translateConfig;
  try {
    // Marshalled here and sent as plain commands through the DocumentClient's own middleware stack (same
    // retries and observers): its per-command wrapping was a measurable share of the worker's CPU per job.
    const sender = client as PlainSender;
    const output =
      request.kind === 'put'
        ? await sender.send(new PutItemCommand(toPutInput(request, marshallingOf(translate))))
        : await sender.send(new UpdateItemCommand(toUpdateInput(request, marshallingOf(translate))));
    return {
      ok: true,
      attributes:
        output.Attributes === undefined ? undefined : unmarshall(output.Attributes, translate?.unmarshallOptions),
    };
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    const returned = error.Item;
    if (returned !== undefined && Object.keys(returned).length > 0) {
      return { ok: false, current: unmarshall(returned, translate?.unmarshallOptions) };
    }
    const key = request.kind === 'put' ? (request.readKey ?? keyOf(request.Item)) : request.Key;
    const read = await client.send(new GetCommand({ TableName: request.TableName, Key: key, ConsistentRead: true }));
    return { ok: false, current: read.Item };
  }
}

/**
 * The client's own marshalling settings, as a DocumentClient command would apply them. Used as they are, not
 * copied: toAttributeMap converts an item's attributes one by one and never reads convertTopLevelContainer,
 * the flag lib-dynamodb sets on this shared object the first time one of its own commands runs.
 */
function marshallingOf(translate: { marshallOptions?: marshallOptions } | undefined): marshallOptions {
  return translate?.marshallOptions ?? NO_OPTIONS;
}

const NO_OPTIONS: marshallOptions = Object.freeze({});

/** The request without `kind`/`readKey`, items and values as attribute maps (fields copied one by one: hot path). */
function toPutInput(request: ConditionalRequest & { kind: 'put' }, options: marshallOptions): PutItemCommandInput {
  const input: PutItemCommandInput = {
    TableName: request.TableName,
    Item: toAttributeMap(request.Item ?? {}, options),
  };
  copyExpressions(request, input, options);
  if (request.ReturnValues !== undefined) input.ReturnValues = request.ReturnValues;
  return input;
}

function toUpdateInput(
  request: ConditionalRequest & { kind: 'update' },
  options: marshallOptions,
): UpdateItemCommandInput {
  const input: UpdateItemCommandInput = {
    TableName: request.TableName,
    Key: toAttributeMap(request.Key ?? {}, options),
    UpdateExpression: request.UpdateExpression,
  };
  copyExpressions(request, input, options);
  if (request.ReturnValues !== undefined) input.ReturnValues = request.ReturnValues;
  return input;
}

/** Condition, names, values and the return/metrics settings both commands share. */
function copyExpressions(
  request: ConditionalRequest,
  input: PutItemCommandInput | UpdateItemCommandInput,
  options: marshallOptions,
): void {
  if (request.ConditionExpression !== undefined) input.ConditionExpression = request.ConditionExpression;
  if (request.ExpressionAttributeNames !== undefined) input.ExpressionAttributeNames = request.ExpressionAttributeNames;
  if (request.ExpressionAttributeValues !== undefined)
    input.ExpressionAttributeValues = toAttributeMap(request.ExpressionAttributeValues, options);
  if (request.ReturnValuesOnConditionCheckFailure !== undefined)
    input.ReturnValuesOnConditionCheckFailure = request.ReturnValuesOnConditionCheckFailure;
  if (request.ReturnConsumedCapacity !== undefined) input.ReturnConsumedCapacity = request.ReturnConsumedCapacity;
  if (request.ReturnItemCollectionMetrics !== undefined)
    input.ReturnItemCollectionMetrics = request.ReturnItemCollectionMetrics;
}

function keyOf(item: Record<string, unknown> | undefined): Record<string, unknown> {
  return { pk: item?.pk, sk: item?.sk };
}

export { type ConditionalOutcome, type ConditionalRequest, sendConditional };
