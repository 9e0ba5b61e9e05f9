import type { PutCommandInput, TransactWriteCommandInput, UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import type { JobIdentity } from '../../identity.js';
import { FINISHED_STATES, WorkState } from '../../states.js';
import { ExpressionBuilder } from '../driver/expressions.js';
import { parkedKeysOf } from '../parked/parked-keys.js';
import { deadlineShardFor, TableKeys, workItemKey } from '../table.js';
import { ATTEMPT_HISTORY_ATTRIBUTE, closeAttempts, openAttempt } from './attempt-history.js';
import { removingStaleResidue } from './attempt-residue.js';
import type { NewWorkItem } from './schemas.js';
import type { Claim, OwnedRecordRef, StoredTargetClass, WorkItem } from './work-item.js';

/** Where a request goes: the jobs table and its deadline-index shard count. */
interface TableContext {
  tableName: string;
  deadlineShards: number;
}

/** Attributes that exist only while an item holds a lease or waits for a deadline. */
const LEASE_ATTRIBUTES = ['leaseOwner', 'leaseExpiresAt', 'deadlineShard', 'deadlineAt'] as const;
/** Attributes that exist only while an item is parked (sparse parked indexes). */
const PARKED_ATTRIBUTES = ['parkedState', 'parkedTenantState', 'parkedAt'] as const;

/** Lease of a claim created together with the item (the two-write happy path). */
interface InitialClaim {
  owner: string;
  claimId: string;
  leaseMs: number;
  /** The job type's target class, recorded with the effect mark. */
  targetClass?: StoredTargetClass;
  /** The job version the claimer runs: a row bound to another version is refused, an unbound row is bound to it. */
  jobVersion?: number;
  /** Class C: how long the provider keeps an idempotency key, recorded with the effect mark. */
  keyRetentionMs?: number;
  /** The records the job type owns for this identity (a cancel stamps them); none when it declares none. */
  ownedRecords?: readonly OwnedRecordRef[];
}

/** What every claim writes before a job body can start: an effect may happen from here on (and where it lands). */
function effectMark(claim: InitialClaim): Record<string, unknown> {
  return {
    effectMayHaveHappened: true,
    ...(claim.targetClass ? { targetClass: claim.targetClass } : {}),
    ...(claim.keyRetentionMs !== undefined ? { keyRetentionMs: claim.keyRetentionMs } : {}),
    ...(claim.ownedRecords && claim.ownedRecords.length > 0 ? { ownedRecords: claim.ownedRecords } : {}),
  };
}

/**
 * Conditional PutItem creating the item awaiting_approval (when the input carries an approval gate; a claim is then
 * never made), else queued at fence `floor` (its epoch's lowest fence, carrying `createToken`), or
 * already claimed with fence `floor + 1`. Fails if the identity exists. The job version is the input's, else the
 * claimer's.
 */
function buildCreateRequest(
  table: TableContext,
  input: NewWorkItem,
  now: number,
  claim?: InitialClaim,
  createToken?: string,
  floor = 0,
): PutCommandInput & { Item: WorkItem } {
  const key = workItemKey(input.identity);
  // Built field by field rather than by spreading partial objects: this runs once per job on the hot path.
  const item: WorkItem = {
    pk: key.pk,
    sk: key.sk,
    kind: 'work',
    tenantId: input.identity.tenantId,
    operationId: input.identity.operationId,
    jobType: input.jobType,
    payloadHash: input.payloadHash,
    maxAttempts: input.maxAttempts,
    steps: {},
    createdAt: now,
    updatedAt: now,
    deadlineShard: deadlineShardFor(input.identity, table.deadlineShards),
    state: WorkState.queued,
    fence: floor,
    attempts: 0,
  };
  if (input.payloadRef !== undefined) item.payloadRef = input.payloadRef;
  if (input.payloadInline === true) item.payloadInline = true;
  const jobVersion = input.jobVersion ?? claim?.jobVersion;
  if (jobVersion !== undefined) item.jobVersion = jobVersion;
  if (input.parentOperationId !== undefined) item.parentOperationId = input.parentOperationId;
  if (input.approval !== undefined) {
    // Before any attempt: no lease, not claimable; parked (counted, listed, aged) and due in the deadline index at
    // its expiry, where the sweeper finds it by a Query.
    item.state = WorkState.awaiting_approval;
    item.approvalExpiresAt = input.approval.expiresAt;
    item.deadlineAt = input.approval.expiresAt;
    item.approvers = input.approval.approvers;
    if (input.approval.producerId !== undefined) item.producerId = input.approval.producerId;
    // A delayed job keeps its due time for after the approval.
    if (input.availableAt !== undefined) item.availableAt = input.availableAt;
    Object.assign(item, parkedAttributes(input.identity, WorkState.awaiting_approval, now));
    if (createToken !== undefined) item.createToken = createToken;
  } else if (claim) {
    item.state = WorkState.claimed;
    item.fence = floor + 1;
    item.attempts = 1;
    item.leaseOwner = claim.owner;
    item.claimId = claim.claimId;
    item.leaseExpiresAt = now + claim.leaseMs;
    item.claimedAt = now;
    item.deadlineAt = now + claim.leaseMs;
    Object.assign(item, effectMark(claim));
    item[ATTEMPT_HISTORY_ATTRIBUTE] = [openAttempt(claim.owner, now)];
  } else {
    item.availableAt = input.availableAt ?? now;
    item.deadlineAt = item.availableAt;
    if (createToken !== undefined) item.createToken = createToken;
  }
  const names = new ExpressionBuilder();
  return {
    TableName: table.tableName,
    Item: item,
    ConditionExpression: `attribute_not_exists(${names.name(TableKeys.partition)})`,
    ...names.attributes(),
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  };
}

/**
 * The claim: one conditional UpdateItem that raises fence and attempts, sets the lease, appends an open
 * attempt-history entry and removes what earlier attempts left on the row (attempt-residue.ts), only if attempts remain and the item is queued and due, or claimed with an expired lease,
 * and (when the lease names a job version) the row is bound to that version or to none (it is bound to it then).
 */
function buildClaimRequest(
  table: TableContext,
  identity: JobIdentity,
  lease: InitialClaim,
  now: number,
): UpdateCommandInput {
  const x = new ExpressionBuilder();
  const one = x.value(1);
  const version = lease.jobVersion !== undefined ? x.value(lease.jobVersion) : undefined;
  const set = {
    state: WorkState.claimed,
    leaseOwner: lease.owner,
    claimId: lease.claimId,
    leaseExpiresAt: now + lease.leaseMs,
    claimedAt: now,
    deadlineShard: deadlineShardFor(identity, table.deadlineShards),
    deadlineAt: now + lease.leaseMs,
    updatedAt: now,
    ...effectMark(lease),
  };
  // A new attempt: what earlier attempts left (error, outcome) goes; their codes stay in the attempt history.
  // A wait for a concurrency slot ends with the claim (the Claim keeps when it began, from the old row).
  const update = x.update(set, removingStaleResidue(set, ['availableAt', 'flowWaitingSince']), [
    `${x.name('fence')} = ${x.name('fence')} + ${one}`,
    `${x.name('attempts')} = ${x.name('attempts')} + ${one}`,
    `${x.name(ATTEMPT_HISTORY_ATTRIBUTE)} = list_append(if_not_exists(${x.name(ATTEMPT_HISTORY_ATTRIBUTE)}, ${x.value([])}), ${x.value([openAttempt(lease.owner, now)])})`,
    ...(version !== undefined ? [`${x.name('jobVersion')} = if_not_exists(${x.name('jobVersion')}, ${version})`] : []),
  ]);
  const nowValue = x.value(now);
  const due = `(${x.name('state')} = ${x.value(WorkState.queued)} AND ${x.name('availableAt')} <= ${nowValue})`;
  const expired = `(${x.name('state')} = ${x.value(WorkState.claimed)} AND ${x.name('leaseExpiresAt')} < ${nowValue})`;
  const bound =
    version !== undefined
      ? ` AND (attribute_not_exists(${x.name('jobVersion')}) OR ${x.name('jobVersion')} = ${version})`
      : '';
  const condition = `attribute_exists(${x.name(TableKeys.partition)}) AND ${x.name('attempts')} < ${x.name('maxAttempts')} AND (${due} OR ${expired})${bound}`;
  return {
    TableName: table.tableName,
    Key: workItemKey(identity),
    UpdateExpression: update,
    ConditionExpression: condition,
    ...x.attributes(),
    ReturnValues: 'ALL_OLD',
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  };
}

/**
 * Why a claim did not happen; none of these is an error, each tells the caller what to do. `awaiting_approval`: the
 * job waits for a decision (its message is acknowledged; the approval sends a new wake-up). `version_unsupported`:
 * the row is bound to a job version the claimer does not run (the row is left as it is).
 */
type NotClaimableReason =
  | 'missing'
  | 'finished'
  | 'awaiting_approval'
  | 'version_unsupported'
  | 'leased'
  | 'exhausted'
  | 'not_due';

/** Whether the claim condition holds for an item at a time, and if not, why. */
type Claimability = { claimable: true } | { claimable: false; reason: NotClaimableReason };

/**
 * The one home of the claim rule: buildClaimRequest's condition read as a function of the item, claimable exactly
 * when that condition would pass (attempts left, and queued and due, or claimed with an expired lease). The
 * conditional write stays the atomic check; this explains a refusal and lets a replay skip a claim that cannot
 * pass. Reasons, first that applies: missing, finished (no worker acts on it again), awaiting_approval (waits for a
 * person's decision), version_unsupported (bound to
 * another version than `jobVersion`, the claimer's), leased, exhausted, not_due.
 */
function claimability(item: WorkItem | undefined, now: number, jobVersion?: number): Claimability {
  if (item === undefined) return { claimable: false, reason: 'missing' };
  if (FINISHED_STATES.includes(item.state)) return { claimable: false, reason: 'finished' };
  // Not claimable until approved (the claim condition asks for queued); its message is acknowledged, not retried.
  if (item.state === WorkState.awaiting_approval) return { claimable: false, reason: 'awaiting_approval' };
  if (jobVersion !== undefined && item.jobVersion !== undefined && item.jobVersion !== jobVersion)
    return { claimable: false, reason: 'version_unsupported' };
  if (item.state === WorkState.claimed && (item.leaseExpiresAt ?? 0) >= now)
    return { claimable: false, reason: 'leased' };
  if (item.attempts >= item.maxAttempts) return { claimable: false, reason: 'exhausted' };
  // An absent attribute fails a comparison inside a condition expression, so it fails here too.
  const due = item.state === WorkState.queued && item.availableAt !== undefined && item.availableAt <= now;
  const expired = item.state === WorkState.claimed && item.leaseExpiresAt !== undefined && item.leaseExpiresAt < now;
  return due || expired ? { claimable: true } : { claimable: false, reason: 'not_due' };
}

/** A change made by the holder of a claim: attributes to set and remove, and how to see it already applied. */
interface HolderTransition {
  readonly name: string;
  readonly set: Record<string, unknown>;
  readonly remove?: readonly string[];
  /** Raw SET clauses (already using builder placeholders), for map-path writes such as steps. */
  readonly raw?: (x: ExpressionBuilder) => string[];
  /** True when the item shows this very transition committed under the claim's fence (a lost response). */
  readonly appliedIn: (item: WorkItem, claim: Claim) => boolean;
  /** Extra condition ANDed after the fence (e.g. "step not yet recorded", so a re-sent step lands once). */
  readonly condition?: (x: ExpressionBuilder) => string;
  /** Set when the transition ends the attempt: its history entry is closed with this code and time. */
  readonly endsAttempt?: { readonly code: string; readonly at: number };
}

/**
 * THE fenced write for work items: every holder transition goes through here and carries
 * `fence = :mine AND state = claimed` inside the write itself. A transition that ends the attempt also
 * rewrites the attempt history (safe: no other writer can have changed it while the fence holds).
 */
function buildFencedUpdate(table: TableContext, claim: Claim, transition: HolderTransition): UpdateCommandInput {
  const x = new ExpressionBuilder();
  const ended = transition.endsAttempt;
  const set = ended
    ? {
        ...transition.set,
        [ATTEMPT_HISTORY_ATTRIBUTE]: closeAttempts(claim.history, claim.fence, ended.at, ended.code),
      }
    : transition.set;
  // A transition into another state removes what the earlier state or attempt left (attempt-residue.ts).
  const removals = set.state !== undefined ? removingStaleResidue(set, transition.remove) : (transition.remove ?? []);
  const update = x.update(set, removals, transition.raw?.(x) ?? []);
  const fenced = `${x.name('fence')} = ${x.value(claim.fence)} AND ${x.name('state')} = ${x.value(WorkState.claimed)}`;
  const condition = transition.condition ? `${fenced} AND ${transition.condition(x)}` : fenced;
  return {
    TableName: table.tableName,
    Key: workItemKey(claim.identity),
    UpdateExpression: update,
    ConditionExpression: condition,
    ...x.attributes(),
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  };
}

/** One element of a TransactWriteItems request. */
type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** What a fenced transaction's caller supplies: the holder transition, its own items, the request token. */
interface FencedTransactionParts {
  readonly transition: HolderTransition;
  /** Writes and checks on the caller's own tables, in order (business write i becomes item i + 1). */
  readonly items: readonly TransactItem[];
  readonly token: string;
}

/**
 * A fenced transaction: item 0 is MY work item under buildFencedUpdate (`fence = :mine AND state = claimed` plus
 * the transition's condition), then the caller's items. So a superseded holder commits none of them.
 */
function buildFencedTransaction(
  table: TableContext,
  claim: Claim,
  parts: FencedTransactionParts,
): TransactWriteCommandInput & { ClientRequestToken: string } {
  const fenced = buildFencedUpdate(table, claim, parts.transition);
  const update = { ...fenced, Key: workItemKey(claim.identity), UpdateExpression: fenced.UpdateExpression ?? '' };
  return { ClientRequestToken: parts.token, TransactItems: [{ Update: update }, ...parts.items] };
}

/** Attributes that park an item in a state an operator must look at (keys sharded by the identity's bucket). */
function parkedAttributes(identity: JobIdentity, state: WorkState, now: number): Record<string, unknown> {
  return { ...parkedKeysOf(identity, state), parkedAt: now };
}

export {
  buildClaimRequest,
  buildCreateRequest,
  buildFencedTransaction,
  buildFencedUpdate,
  type Claimability,
  claimability,
  type FencedTransactionParts,
  type HolderTransition,
  type InitialClaim,
  LEASE_ATTRIBUTES,
  type NotClaimableReason,
  PARKED_ATTRIBUTES,
  parkedAttributes,
  type TableContext,
  type TransactItem,
};
