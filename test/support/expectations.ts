import { type AttributeValue, GetItemCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { expect } from 'vitest';
import type { ValidIdentity } from '../../lib/identity.js';
import type { WorkState } from '../../lib/states.js';
import { workItemKey } from '../../lib/store/table.js';
import type { ClaimResult, EnqueueResult, WorkItemStore } from '../../lib/store/work-item-store.js';
import type { Claim, WorkItem } from '../../lib/store/work-items/work-item.js';

/** Reads the item (strongly consistent) and asserts it exists in `state`. Returns it for further checks. */
async function expectState(store: WorkItemStore, identity: ValidIdentity, state: WorkState): Promise<WorkItem> {
  const item = await store.get(identity);
  expect(item, `work item ${identity.tenantId}/${identity.operationId} should exist`).toBeDefined();
  expect(item?.state).toBe(state);
  return item as WorkItem;
}

/** Asserts no work item exists for `identity`. */
async function expectAbsent(store: WorkItemStore, identity: ValidIdentity): Promise<void> {
  expect(await store.get(identity)).toBeUndefined();
}

/** The claim of a successful claim result; fails the test with the reason otherwise. */
function expectClaimed(result: ClaimResult): Claim {
  if (!result.claimed) throw new Error(`expected a claim, got reason '${result.reason}'`);
  return result.claim;
}

/** The claim of an enqueue that created the item claimed; fails the test otherwise. */
function expectCreatedClaim(result: EnqueueResult): Claim {
  if (result.outcome !== 'created' || result.claim === undefined) {
    throw new Error(`expected a created, claimed item, got '${result.outcome}'`);
  }
  return result.claim;
}

/** Awaits `promise`, asserts it rejects with an instance of `type`, and returns the error for further checks. */
async function expectRejection<E extends Error>(
  promise: Promise<unknown>,
  type: abstract new (...args: never[]) => E,
): Promise<E> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(type);
  return error as E;
}

/** Asserts a synchronous call throws an instance of `type`; returns the error. */
function expectThrown<E extends Error>(call: () => unknown, type: abstract new (...args: never[]) => E): E {
  let thrown: unknown;
  try {
    call();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(type);
  return thrown as E;
}

/**
 * The stored item exactly as the engine returns it (typed AttributeValues, numbers as their stored strings),
 * for byte-for-byte comparisons before and after an operation that must not write.
 */
async function readRawItem(
  client: DynamoDBDocumentClient,
  tableName: string,
  identity: ValidIdentity,
): Promise<Record<string, AttributeValue> | undefined> {
  const output = await client.send(
    new GetItemCommand({
      TableName: tableName,
      Key: { pk: { S: workItemKey(identity).pk }, sk: { S: workItemKey(identity).sk } },
      ConsistentRead: true,
    }),
  );
  return output.Item;
}

/**
 * Retries `probe` until `accept` holds, a bounded number of times (GSIs are eventually consistent on
 * DynamoDB; on dynalite the first try holds). Returns the last value; the caller asserts on it.
 */
async function eventually<T>(probe: () => Promise<T>, accept: (value: T) => boolean, attempts = 20): Promise<T> {
  let value = await probe();
  for (let attempt = 1; attempt < attempts && !accept(value); attempt += 1) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    value = await probe();
  }
  return value;
}

export {
  eventually,
  expectAbsent,
  expectClaimed,
  expectCreatedClaim,
  expectRejection,
  expectState,
  expectThrown,
  readRawItem,
};
