import { ConditionalCheckFailedException, PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import {
  marshallingOf,
  type PlainPut,
  type PlainUpdate,
  plainSender,
  putItemInput,
  sendGet,
  type TableClient,
  toPlainItem,
  updateItemInput,
} from './plain-requests.js';

/** Result of a conditional write: the attributes it returned, or the item as it stood when the condition failed. */
type ConditionalOutcome =
  | { ok: true; attributes: Record<string, unknown> | undefined }
  | { ok: false; current: Record<string, unknown> | undefined };

/** A conditional Put or Update in DocumentClient form (plain values); `readKey` finds a put's item in a table not keyed `pk`/`sk`. */
type ConditionalRequest =
  | ({ kind: 'put'; readKey?: Record<string, unknown> } & PlainPut)
  | ({ kind: 'update' } & PlainUpdate);

/**
 * Sends one conditional Put or Update. A failed condition is not thrown: the current item comes back,
 * from ReturnValuesOnConditionCheckFailure when the engine returns it, else from one consistent GetItem
 * (dynalite ignores that parameter). Every other error propagates unchanged.
 */
async function sendConditional(client: TableClient, request: ConditionalRequest): Promise<ConditionalOutcome> {
  try {
    // Marshalled here and sent as plain commands through the client's own middleware stack (a DocumentClient's:
    // same retries and observers): its per-command wrapping was a measurable share of the worker's CPU per job.
    const sender = plainSender(client);
    const options = marshallingOf(client);
    const output =
      request.kind === 'put'
        ? await sender.send(new PutItemCommand(putItemInput(request, options)))
        : await sender.send(new UpdateItemCommand(updateItemInput(request, options)));
    return {
      ok: true,
      attributes: output.Attributes === undefined ? undefined : toPlainItem(client, output.Attributes),
    };
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    const returned = error.Item;
    if (returned !== undefined && Object.keys(returned).length > 0) {
      return { ok: false, current: toPlainItem(client, returned) };
    }
    const key = request.kind === 'put' ? (request.readKey ?? keyOf(request.Item)) : request.Key;
    const read = await sendGet(client, { TableName: request.TableName, Key: key, ConsistentRead: true });
    return { ok: false, current: read.Item };
  }
}

function keyOf(item: Record<string, unknown> | undefined): Record<string, unknown> {
  return { pk: item?.pk, sk: item?.sk };
}

export { type ConditionalOutcome, type ConditionalRequest, sendConditional };
