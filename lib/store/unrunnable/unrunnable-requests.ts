import type { UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import type { ValidIdentity } from '../../identity.js';
import { WorkState } from '../../states.js';
import { ExpressionBuilder } from '../driver/expressions.js';
import type { OperatorTransition } from '../operator/operator-requests.js';
import { TableKeys, workItemKey } from '../table.js';
import { UnrunnableAttribute } from '../work-items/attempt-residue.js';
import { LEASE_ATTRIBUTES, parkedAttributes } from '../work-items/requests.js';
import type { WorkItem } from '../work-items/work-item.js';

/*
 * Rows no deployed worker can run (bound to a retired version, or of a job type no worker registers after a
 * rollback): every worker that refuses one of their wake-ups notes it on the row, and past the ceiling the row is
 * parked quarantined with the reason and the versions the refusing workers run, where `ls`, the console and the
 * admin list show it and `retry` requeues it once a worker runs its version. Pure request builders.
 */

/** Error codes of a row parked because no worker runs it. */
const UnrunnableCode = {
  /** Bound to a version of its job type that no worker that received its wake-ups runs. */
  version: 'no_worker_runs_version',
  /** Of a job type no worker that received its wake-ups registers. */
  jobType: 'no_worker_runs_job_type',
} as const;

/**
 * When the refusals park the row: at `refusals` refusals once `minWaitMs` passed since the first (a rolling deploy's
 * old workers take it meanwhile; the sweeper re-signals a queued row every 2 minutes, so about 15 minutes), or at
 * the first refusal once `maxWaitMs` passed, whatever the count. Liveness only: parking cuts nobody off (no holder).
 */
const UNRUNNABLE_CEILING = { refusals: 5, minWaitMs: 15 * 60_000, maxWaitMs: 60 * 60_000 } as const;

/** A worker's refusal of a row it cannot run: the row's identity, the type the message named, the version it runs. */
interface UnrunnableRefusal {
  readonly identity: ValidIdentity;
  readonly jobType: string;
  /** The version of `jobType` this worker runs; absent when it runs none (the type is not registered with it). */
  readonly runsVersion?: number;
}

/**
 * The refusal note: one conditional UpdateItem, landing only on a queued row of that job type that this worker indeed
 * cannot run (bound to another version, or any version of a type it does not run): the first refusal's time (kept)
 * and one more refusal. Every state change and claim removes the note (attempt-residue.ts). The new row comes back.
 */
function buildRefusalNote(tableName: string, refusal: UnrunnableRefusal, now: number): UpdateCommandInput {
  const x = new ExpressionBuilder();
  const since = x.name(UnrunnableAttribute.since);
  const refusals = x.name(UnrunnableAttribute.refusals);
  const update = x.update(
    {},
    [],
    [
      `${since} = if_not_exists(${since}, ${x.value(now)})`,
      `${refusals} = if_not_exists(${refusals}, ${x.value(0)}) + ${x.value(1)}`,
    ],
  );
  const conditions = [
    `attribute_exists(${x.name(TableKeys.partition)})`,
    `${x.name('state')} = ${x.value(WorkState.queued)}`,
    `${x.name('jobType')} = ${x.value(refusal.jobType)}`,
  ];
  if (refusal.runsVersion !== undefined) {
    const version = x.name('jobVersion');
    conditions.push(`attribute_exists(${version}) AND ${version} <> ${x.value(refusal.runsVersion)}`);
  }
  return {
    TableName: tableName,
    Key: workItemKey(refusal.identity),
    UpdateExpression: update,
    ConditionExpression: conditions.join(' AND '),
    ...x.attributes(),
    ReturnValues: 'ALL_NEW',
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  };
}

/** True when a noted row has reached the ceiling at `now` (UNRUNNABLE_CEILING). */
function pastCeiling(item: Pick<WorkItem, 'unrunnableSince' | 'unrunnableRefusals'>, now: number): boolean {
  const waited = now - (item.unrunnableSince ?? now);
  const refusals = item.unrunnableRefusals ?? 0;
  return (
    (refusals >= UNRUNNABLE_CEILING.refusals && waited >= UNRUNNABLE_CEILING.minWaitMs) ||
    waited >= UNRUNNABLE_CEILING.maxWaitMs
  );
}

/** What the parked row says: why, for how long, what the refusing workers run, and what to do. */
function unrunnableMessage(item: WorkItem, refusal: UnrunnableRefusal, now: number): string {
  const minutes = Math.floor((now - (item.unrunnableSince ?? now)) / 60_000);
  const seen = `${item.unrunnableRefusals ?? 0} wake-ups over ${minutes} min`;
  if (refusal.runsVersion === undefined) {
    return `no worker runs job type ${item.jobType} (${seen} reached workers that do not register it); deploy a worker that runs it, then retry`;
  }
  return `bound to version ${String(item.jobVersion)} of ${item.jobType}; this deployment's workers run version ${refusal.runsVersion} (${seen}); deploy a worker of version ${String(item.jobVersion)}, then retry`;
}

/**
 * queued ▶ quarantined (fence + 1: nobody holds it), conditional on the state, fence and refusal count the note
 * returned, so a claim or another note in between leaves the row as it is. Leaves the deadline index (the sweeper
 * stops re-signalling) for the parked index, with the reason as its error.
 */
function parkUnrunnableTransition(item: WorkItem, refusal: UnrunnableRefusal, now: number): OperatorTransition {
  const errorCode = refusal.runsVersion === undefined ? UnrunnableCode.jobType : UnrunnableCode.version;
  return {
    expected: { state: WorkState.queued, fence: item.fence },
    to: WorkState.quarantined,
    set: {
      errorCode,
      errorMessage: unrunnableMessage(item, refusal, now),
      finishedAt: now,
      ...parkedAttributes(item, WorkState.quarantined, now),
    },
    remove: LEASE_ATTRIBUTES,
    condition: (x) => `${x.name(UnrunnableAttribute.refusals)} = ${x.value(item.unrunnableRefusals ?? 0)}`,
  };
}

export {
  buildRefusalNote,
  parkUnrunnableTransition,
  pastCeiling,
  UNRUNNABLE_CEILING,
  UnrunnableCode,
  type UnrunnableRefusal,
};
