import { randomUUID } from 'node:crypto';
import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { payloadHash } from '../../lib/hashing.js';
import { type JobIdentity, parseIdentity, type ValidIdentity } from '../../lib/identity.js';
import type { WorkState } from '../../lib/states.js';
import { parkedKeysOf } from '../../lib/store/parked/parked-keys.js';
import { DEFAULT_DEADLINE_SHARDS, deadlineShardFor, workItemKey } from '../../lib/store/table.js';
import { WorkItemStore } from '../../lib/store/work-item-store.js';
import { type NewWorkItem, type NewWorkItemInput, parseNewWorkItem } from '../../lib/store/work-items/schemas.js';
import type { WorkItem } from '../../lib/store/work-items/work-item.js';

/** A fixed instant the factories use when the test gives none (the ManualClock default). */
const FACTORY_NOW = Date.UTC(2026, 0, 1);

let identityCounter = 0;

/** A fresh, valid identity; `tenantId` defaults to `tenant-a`. Unique within the test process. */
function newIdentity(tenantId = 'tenant-a', prefix = 'op'): ValidIdentity {
  identityCounter += 1;
  return parseIdentity({ tenantId, operationId: `${prefix}-${identityCounter}-${randomUUID().slice(0, 8)}` });
}

/** A valid NewWorkItem (payloadRef flavour) for `identity`, parsed as any hand-built item is; override any field. */
function newWorkItem(identity: JobIdentity, overrides: Partial<NewWorkItemInput> = {}): NewWorkItem {
  return parseNewWorkItem({
    identity,
    jobType: 'demo',
    payloadHash: payloadHash({ order: identity.operationId }),
    payloadRef: `s3://payloads/${identity.operationId}`,
    maxAttempts: 3,
    ...overrides,
  });
}

/** Options of putWorkItem: the state to create, and any attribute to override. */
interface WorkItemSeed {
  identity: JobIdentity;
  state: WorkState;
  now?: number;
  deadlineShards?: number;
  overrides?: Partial<WorkItem>;
}

/**
 * Builds a self-consistent work row in any state, with the sparse index attributes that state carries
 * (deadline while queued/claimed, parked while unknown/quarantined/failed_terminal). Tests only.
 */
function workItemInState(seed: WorkItemSeed): WorkItem {
  const now = seed.now ?? FACTORY_NOW;
  const { identity, state } = seed;
  const shard = deadlineShardFor(identity, seed.deadlineShards ?? DEFAULT_DEADLINE_SHARDS);
  const base: WorkItem = {
    ...workItemKey(identity),
    kind: 'work',
    tenantId: identity.tenantId,
    operationId: identity.operationId,
    jobType: 'demo',
    payloadHash: payloadHash({ order: identity.operationId }),
    payloadRef: `s3://payloads/${identity.operationId}`,
    state,
    fence: 1,
    attempts: 1,
    maxAttempts: 3,
    steps: {},
    createdAt: now - 60_000,
    updatedAt: now,
  };
  const byState: Record<WorkState, Partial<WorkItem>> = {
    awaiting_approval: {
      fence: 0,
      attempts: 0,
      approvalExpiresAt: now + 3_600_000,
      approvers: 'anyone',
      deadlineShard: shard,
      deadlineAt: now + 3_600_000,
      ...parked(identity, state, now),
    },
    queued: { fence: 0, attempts: 0, availableAt: now, deadlineShard: shard, deadlineAt: now },
    claimed: {
      leaseOwner: 'factory-worker',
      claimId: randomUUID(),
      leaseExpiresAt: now + 30_000,
      deadlineShard: shard,
      deadlineAt: now + 30_000,
      ah: [{ o: 'factory-worker', s: now }],
    },
    succeeded: { outcomeCode: 'ok', finishedAt: now },
    failed_terminal: { errorCode: 'factory_failure', finishedAt: now, ...parked(identity, state, now) },
    unknown: { errorCode: 'factory_unknown', finishedAt: now, ...parked(identity, state, now) },
    quarantined: { errorCode: 'factory_quarantine', finishedAt: now, ...parked(identity, state, now) },
    cancelled: { fence: 2, finishedAt: now },
  };
  return { ...base, ...byState[state], ...seed.overrides };
}

function parked(identity: JobIdentity, state: WorkState, now: number): Partial<WorkItem> {
  return { ...parkedKeysOf(identity, state), parkedAt: now };
}

/**
 * Writes a work row in any state with a raw, unconditional PutItem (bypasses the store). Returns the row. A row
 * awaiting approval gets its approval record too, open as the worker opens it when it first sees the row (the
 * row's hash, approvers, expiry and producer): what an approver then decides on.
 */
async function putWorkItem(client: DynamoDBDocumentClient, tableName: string, seed: WorkItemSeed): Promise<WorkItem> {
  const item = workItemInState(seed);
  await client.send(new PutCommand({ TableName: tableName, Item: item }));
  if (item.state === 'awaiting_approval') {
    const store = new WorkItemStore({ client, tableName });
    await store.approvals.records.open(parseIdentity({ tenantId: item.tenantId, operationId: item.operationId }), {
      payloadHash: item.payloadHash,
      approvers: item.approvers ?? 'anyone',
      expiresAt: item.approvalExpiresAt ?? item.createdAt,
      ...(item.producerId !== undefined ? { producerId: item.producerId } : {}),
    });
  }
  return item;
}

export { FACTORY_NOW, newIdentity, newWorkItem, putWorkItem, type WorkItemSeed, workItemInState };
