import {
  type AttributeValue,
  DeleteItemCommand,
  type DeleteItemCommandInput,
  type DynamoDBClient,
  GetItemCommand,
  type GetItemCommandInput,
  PutItemCommand,
  type PutItemCommandInput,
  QueryCommand,
  type QueryCommandInput,
  type QueryCommandOutput,
  ScanCommand,
  type ScanCommandInput,
  type ScanCommandOutput,
  type TransactWriteItem,
  TransactWriteItemsCommand,
  UpdateItemCommand,
  type UpdateItemCommandInput,
} from '@aws-sdk/client-dynamodb';
import type {
  DeleteCommandInput,
  DynamoDBDocumentClient,
  GetCommandInput,
  GetCommandOutput,
  PutCommandInput,
  QueryCommandInput as QueryInput,
  QueryCommandOutput as QueryOutput,
  ScanCommandInput as ScanInput,
  ScanCommandOutput as ScanOutput,
  TransactWriteCommandInput,
  UpdateCommandInput,
  UpdateCommandOutput,
} from '@aws-sdk/lib-dynamodb';
import { type marshallOptions, unmarshall, type unmarshallOptions } from '@aws-sdk/util-dynamodb';
import { MARSHALL_OPTIONS } from '../../aws-clients.js';
import { toAttributeMap } from './attribute-values.js';

/*
 * The one home of the store's requests in plain form. Callers build requests with plain values (DocumentClient
 * input shapes); these helpers marshal them, send the low-level client-dynamodb command, and unmarshal what comes
 * back, as a DocumentClient command would, so code that sends through here never loads @aws-sdk/lib-dynamodb.
 */

/**
 * What store code sends through: a plain DynamoDBClient (the sweeper's and admin's) or a DynamoDBDocumentClient
 * (the worker's, and any a user passes). Both send low-level commands through the same middleware stack.
 */
type TableClient = DynamoDBClient | DynamoDBDocumentClient;

/*
 * The request shapes accepted: DocumentClient inputs without the legacy parameters (KeyConditions, QueryFilter,
 * ScanFilter, Expected, AttributeUpdates), which the store never uses and these helpers do not marshal.
 */
type PlainQuery = Omit<QueryInput, 'KeyConditions' | 'QueryFilter'>;
type PlainScan = Omit<ScanInput, 'ScanFilter'>;
type PlainPut = Omit<PutCommandInput, 'Expected'>;
type PlainUpdate = Omit<UpdateCommandInput, 'Expected' | 'AttributeUpdates'>;
type PlainDelete = Omit<DeleteCommandInput, 'Expected'>;

/** Per-request options of `send` (an abort signal, for one). */
type SendOptions = Parameters<DynamoDBClient['send']>[1];

// Both client kinds send plain commands, but the overloads of their send methods do not unify.
type PlainSender = Pick<DynamoDBClient, 'send'>;

/** The marshalling a DocumentClient is configured with (`DynamoDBDocumentClient.from`'s translateConfig). */
interface Translation {
  marshallOptions?: marshallOptions;
  unmarshallOptions?: unmarshallOptions;
}

const NO_OPTIONS: marshallOptions = Object.freeze({});

/** A DocumentClient's translateConfig; undefined for a plain client. */
function translationOf(client: TableClient): Translation | undefined {
  return (client.config as { translateConfig?: Translation } | undefined)?.translateConfig;
}

/**
 * The client's marshalling settings: a DocumentClient's own, as its commands would apply them (used as they are,
 * not copied: toAttributeMap converts attributes one by one and never reads convertTopLevelContainer, the flag
 * lib-dynamodb sets on this shared object the first time one of its own commands runs), else MARSHALL_OPTIONS:
 * what createDocumentClient configures.
 */
function marshallingOf(client: TableClient): marshallOptions {
  const translate = translationOf(client);
  if (translate === undefined) return MARSHALL_OPTIONS;
  return translate.marshallOptions ?? NO_OPTIONS;
}

/**
 * An attribute map as plain values, with the client's unmarshall options (default: numbers as JS numbers). The
 * map is read as a map even if lib-dynamodb set convertWithoutMapWrapper on a shared options object.
 */
function toPlainItem(client: TableClient, item: Record<string, AttributeValue>): Record<string, unknown> {
  const options = translationOf(client)?.unmarshallOptions;
  return unmarshall(
    item,
    options?.convertWithoutMapWrapper ? { ...options, convertWithoutMapWrapper: false } : options,
  );
}

function toPlainItems(client: TableClient, items: Record<string, AttributeValue>[] | undefined) {
  return items?.map((item) => toPlainItem(client, item));
}

/** The client as a sender of low-level commands (what both kinds are underneath). */
function plainSender(client: TableClient): PlainSender {
  return client as PlainSender;
}

/**
 * A map of plain values (an item, a key, expression values) as attribute values, as a DocumentClient command
 * converts it: each top-level value on its own, so an undefined one is left out whatever the options (only nested
 * ones need removeUndefinedValues). With removeUndefinedValues (our clients) that is toAttributeMap as it is.
 */
function toMap(values: Record<string, unknown>, options: marshallOptions): Record<string, AttributeValue> {
  if (options.removeUndefinedValues === true) return toAttributeMap(values, options);
  const defined: Record<string, unknown> = {};
  // for…in, as toAttributeMap iterates: enumerable properties, inherited ones included.
  for (const name in values) if (values[name] !== undefined) defined[name] = values[name];
  return toAttributeMap(defined, options);
}

/** A map of plain values as attribute values (absent stays absent). */
function attributes(
  values: Record<string, unknown> | undefined,
  options: marshallOptions,
): Record<string, AttributeValue> | undefined {
  return values === undefined ? undefined : toMap(values, options);
}

/** GetItem: the item as plain values (absent: no such item). */
async function sendGet(client: TableClient, input: GetCommandInput): Promise<GetCommandOutput> {
  const { Key, ...rest } = input;
  const request: GetItemCommandInput = { ...rest, Key: attributes(Key, marshallingOf(client)) };
  const { Item, ...output } = await plainSender(client).send(new GetItemCommand(request));
  return { ...output, ...(Item !== undefined ? { Item: toPlainItem(client, Item) } : {}) };
}

/** One Query page: items and LastEvaluatedKey as plain values. */
async function sendQuery(client: TableClient, input: PlainQuery): Promise<QueryOutput> {
  const request: QueryCommandInput = pageInput(input, marshallingOf(client));
  return plainPage(client, await plainSender(client).send(new QueryCommand(request)));
}

/** One Scan page: items and LastEvaluatedKey as plain values. */
async function sendScan(client: TableClient, input: PlainScan): Promise<ScanOutput> {
  const request: ScanCommandInput = pageInput(input, marshallingOf(client));
  return plainPage(client, await plainSender(client).send(new ScanCommand(request)));
}

/** A Query's or Scan's input with its start key and expression values marshalled (absent ones stay absent). */
function pageInput<I extends PlainQuery | PlainScan>(input: I, options: marshallOptions) {
  const { ExclusiveStartKey, ExpressionAttributeValues, ...rest } = input;
  return {
    ...rest,
    ...optional('ExclusiveStartKey', attributes(ExclusiveStartKey, options)),
    ...optional('ExpressionAttributeValues', attributes(ExpressionAttributeValues, options)),
  };
}

function plainPage<O extends QueryCommandOutput | ScanCommandOutput>(
  client: TableClient,
  page: O,
): Omit<O, 'Items' | 'LastEvaluatedKey'> & {
  Items?: Record<string, unknown>[];
  LastEvaluatedKey?: Record<string, unknown>;
} {
  const { Items, LastEvaluatedKey, ...output } = page;
  return {
    ...output,
    ...optional('Items', toPlainItems(client, Items)),
    ...optional('LastEvaluatedKey', LastEvaluatedKey && toPlainItem(client, LastEvaluatedKey)),
  };
}

/** PutItem (unconditional or conditional: a failed condition throws ConditionalCheckFailedException). */
async function sendPut(client: TableClient, input: PlainPut): Promise<void> {
  await plainSender(client).send(new PutItemCommand(putItemInput(input, marshallingOf(client))));
}

/** UpdateItem; the attributes it returns (ReturnValues) as plain values. */
async function sendUpdate(
  client: TableClient,
  input: PlainUpdate,
  options?: SendOptions,
): Promise<Pick<UpdateCommandOutput, 'Attributes'>> {
  const { Attributes } = await plainSender(client).send(
    new UpdateItemCommand(updateItemInput(input, marshallingOf(client))),
    options,
  );
  return Attributes !== undefined ? { Attributes: toPlainItem(client, Attributes) } : {};
}

/** DeleteItem (a failed condition throws ConditionalCheckFailedException). */
async function sendDelete(client: TableClient, input: PlainDelete): Promise<void> {
  await plainSender(client).send(new DeleteItemCommand(deleteItemInput(input, marshallingOf(client))));
}

/** DeleteItem returning the old item as plain values (`ReturnValues: ALL_OLD`); undefined when there was none. */
async function sendDeleteReturning(
  client: TableClient,
  input: PlainDelete,
): Promise<Record<string, unknown> | undefined> {
  const { Attributes } = await plainSender(client).send(
    new DeleteItemCommand(deleteItemInput(input, marshallingOf(client))),
  );
  return Attributes !== undefined ? toPlainItem(client, Attributes) : undefined;
}

/** TransactWriteItems of plain-valued items. Errors propagate unchanged (CancellationReasons as the engine sent them). */
async function sendTransactWrite(client: TableClient, input: TransactWriteCommandInput): Promise<void> {
  const options = marshallingOf(client);
  const { TransactItems, ...rest } = input;
  const items = TransactItems?.map(
    ({ ConditionCheck, Put, Delete, Update }): TransactWriteItem => ({
      ...optional('ConditionCheck', ConditionCheck && { ...ConditionCheck, ...keyAndValues(ConditionCheck, options) }),
      ...optional('Put', Put && { ...Put, Item: toMap(Put.Item ?? {}, options), ...values(Put, options) }),
      ...optional('Delete', Delete && { ...Delete, ...keyAndValues(Delete, options) }),
      ...optional('Update', Update && { ...Update, ...keyAndValues(Update, options) }),
    }),
  );
  await plainSender(client).send(new TransactWriteItemsCommand({ ...rest, TransactItems: items }));
}

/** Key and ExpressionAttributeValues of a request, marshalled (absent ones stay absent). */
function keyAndValues(
  request: { Key: Record<string, unknown> | undefined; ExpressionAttributeValues?: Record<string, unknown> },
  options: marshallOptions,
) {
  return {
    Key: toMap(request.Key ?? {}, options),
    ...values(request, options),
  };
}

/** ExpressionAttributeValues of a request, marshalled (absent stays absent). */
function values(request: { ExpressionAttributeValues?: Record<string, unknown> }, options: marshallOptions) {
  return optional('ExpressionAttributeValues', attributes(request.ExpressionAttributeValues, options));
}

/** A Put in plain form as PutItem input (fields copied one by one: the worker's hot path sends it per job). */
function putItemInput(input: PlainPut, options: marshallOptions): PutItemCommandInput {
  const request: PutItemCommandInput = { TableName: input.TableName, Item: toMap(input.Item ?? {}, options) };
  copyExpressions(input, request, options);
  if (input.ReturnValues !== undefined) request.ReturnValues = input.ReturnValues;
  return request;
}

/** An Update in plain form as UpdateItem input (fields copied one by one, as putItemInput). */
function updateItemInput(input: PlainUpdate, options: marshallOptions): UpdateItemCommandInput {
  const request: UpdateItemCommandInput = {
    TableName: input.TableName,
    Key: toMap(input.Key ?? {}, options),
    UpdateExpression: input.UpdateExpression,
  };
  copyExpressions(input, request, options);
  if (input.ReturnValues !== undefined) request.ReturnValues = input.ReturnValues;
  return request;
}

/** Condition, names, values and the return/metrics settings PutItem and UpdateItem share. */
function copyExpressions(
  input: PlainPut | PlainUpdate,
  request: PutItemCommandInput | UpdateItemCommandInput,
  options: marshallOptions,
): void {
  if (input.ConditionExpression !== undefined) request.ConditionExpression = input.ConditionExpression;
  if (input.ExpressionAttributeNames !== undefined) request.ExpressionAttributeNames = input.ExpressionAttributeNames;
  if (input.ExpressionAttributeValues !== undefined)
    request.ExpressionAttributeValues = toMap(input.ExpressionAttributeValues, options);
  if (input.ReturnValuesOnConditionCheckFailure !== undefined)
    request.ReturnValuesOnConditionCheckFailure = input.ReturnValuesOnConditionCheckFailure;
  if (input.ReturnConsumedCapacity !== undefined) request.ReturnConsumedCapacity = input.ReturnConsumedCapacity;
  if (input.ReturnItemCollectionMetrics !== undefined)
    request.ReturnItemCollectionMetrics = input.ReturnItemCollectionMetrics;
}

function deleteItemInput(input: PlainDelete, options: marshallOptions): DeleteItemCommandInput {
  const { Key, ExpressionAttributeValues, ...rest } = input;
  return {
    ...rest,
    Key: toMap(Key ?? {}, options),
    ...optional('ExpressionAttributeValues', attributes(ExpressionAttributeValues, options)),
  };
}

/** `{ [name]: value }`, or nothing when the value is absent (no `name: undefined` keys in a request). */
function optional<K extends string, V>(name: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [name]: value }) as { [P in K]?: V };
}

export {
  marshallingOf,
  type PlainDelete,
  type PlainPut,
  type PlainUpdate,
  plainSender,
  putItemInput,
  sendDelete,
  sendDeleteReturning,
  sendGet,
  sendPut,
  sendQuery,
  sendScan,
  sendTransactWrite,
  sendUpdate,
  type TableClient,
  toPlainItem,
  updateItemInput,
};
