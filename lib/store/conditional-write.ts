import {
  type AttributeValue,
  ConditionalCheckFailedException,
  PutItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  type PutCommandInput,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';

/** Result of a conditional write: the attributes it returned, or the item as it stood when the condition failed. */
type ConditionalOutcome =
  | { ok: true; attributes: Record<string, unknown> | undefined }
  | { ok: false; current: Record<string, unknown> | undefined };

/**
 * Sends one conditional Put or Update. A failed condition is not thrown: the current item comes back,
 * from ReturnValuesOnConditionCheckFailure when the engine returns it, else from one consistent GetItem
 * (dynalite ignores that parameter). Every other error propagates unchanged. A put into a table whose key is
 * not `pk`/`sk` passes `readKey` so the read-back finds the item.
 */
async function sendConditional(
  client: DynamoDBDocumentClient,
  request:
    | ({ kind: 'put'; readKey?: Record<string, unknown> } & PutCommandInput)
    | ({ kind: 'update' } & UpdateCommandInput),
): Promise<ConditionalOutcome> {
  try {
    // Marshalled here and sent as plain commands through the same client (same middleware, retries and
    // observers): the DocumentClient's per-command wrapping was a measurable share of the worker's CPU per job.
    // The client's own translation settings apply, as they would to a DocumentClient command. Copied, with
    // whole items marshalled as attribute maps: lib-dynamodb sets convertTopLevelContainer on the shared
    // options object the first time one of its own commands runs.
    const translate = client.config?.translateConfig ?? {};
    const options = { ...translate.marshallOptions, convertTopLevelContainer: false as const };
    const toAttributes = (item: Record<string, unknown> | undefined) => marshall(item ?? {}, options);
    const values = (map: Record<string, unknown> | undefined) =>
      map === undefined ? {} : { ExpressionAttributeValues: toAttributes(map) };
    const fromAttributes = (attributes: Record<string, AttributeValue> | undefined) =>
      attributes === undefined ? undefined : unmarshall(attributes, translate.unmarshallOptions);
    if (request.kind === 'put') {
      const { kind: _kind, readKey: _readKey, Item, ExpressionAttributeValues, ...rest } = request;
      const output = await client.send(
        new PutItemCommand({ ...rest, Item: toAttributes(Item), ...values(ExpressionAttributeValues) }),
      );
      return { ok: true, attributes: fromAttributes(output.Attributes) };
    }
    const { kind: _kind, Key, ExpressionAttributeValues, ...rest } = request;
    const output = await client.send(
      new UpdateItemCommand({ ...rest, Key: toAttributes(Key), ...values(ExpressionAttributeValues) }),
    );
    return { ok: true, attributes: fromAttributes(output.Attributes) };
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    const returned = error.Item;
    if (returned !== undefined && Object.keys(returned).length > 0) {
      return { ok: false, current: unmarshall(returned, client.config?.translateConfig?.unmarshallOptions) };
    }
    const key = request.kind === 'put' ? (request.readKey ?? keyOf(request.Item)) : request.Key;
    const read = await client.send(new GetCommand({ TableName: request.TableName, Key: key, ConsistentRead: true }));
    return { ok: false, current: read.Item };
  }
}

function keyOf(item: Record<string, unknown> | undefined): Record<string, unknown> {
  return { pk: item?.pk, sk: item?.sk };
}

export { type ConditionalOutcome, sendConditional };
