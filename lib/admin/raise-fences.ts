import * as z from 'zod/mini';
import { ConfigurationError, IllegalTransitionError, InvalidInputError, isLeasefenceError } from '../errors.js';
import { RESTORE_REQUEUE_CODES } from '../fenced/fence-terms.js';
import { readRecordFloor } from '../fenced/record-floor.js';
import type { JobIdentity } from '../identity.js';
import { parseInput } from '../internal/validation.js';
import { sendWakeSignals } from '../messaging/wake.js';
import { WorkState } from '../states.js';
import type { OperatorTransition } from '../store/index.js';
import {
  type CallerIdentity,
  epochFloor,
  fenceEpochOf,
  identityOfItem,
  MAX_FENCE_EPOCH,
  type OperatorAction,
  raiseFenceTransition,
  requeueTransition,
  TableKeys,
  type WorkItem,
} from '../store/index.js';
import { writeAuditRecord } from './audit.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import { type AdminDeps, adminClock } from './deps.js';
import { actorSchema, callerSchema, reasonSchema } from './schemas.js';

/**
 * Raise the deployment's fence epoch after a restore and lift every work item into it. The first call (no
 * `cursor`) finds the floor, raises the epoch and starts the walk; a call with `cursor` and `epoch` (both from
 * an earlier report) resumes that walk; `max` bounds one call.
 */
interface RaiseFencesInput {
  reason: string;
  actor: string;
  caller?: CallerIdentity;
  /** Tables whose highest `writer_epoch` the new epoch must clear: the `recordTables` the job types declare. */
  recordTables?: readonly string[];
  /** A fence some record outside `recordTables` may have seen (the new epoch clears it too). */
  above?: number;
  /**
   * An epoch whose every fence the new epoch must clear: after a restore to before an earlier raise, the epoch that
   * raise wrote (its audit record names it). The new epoch is at least one above it, within the epoch budget.
   */
  aboveEpoch?: number;
  /** Resuming: the epoch of the run `cursor` came from. */
  epoch?: number;
  cursor?: string;
  max?: number;
}

/** What one call did; `complete` false means more of the table remains: call again with `cursor` and `epoch`. */
interface RaiseFencesReport {
  /** The epoch every fence issued from now on belongs to; its floor is `epoch × 2^40`. */
  epoch: number;
  /** The highest fence the first call found in the record tables (or was given as `above`); absent when resuming. */
  floor?: number;
  /** Records read in the record tables to find the floor (first call only). */
  recordsRead?: number;
  /** Work items read in this call. */
  scanned: number;
  /** Items whose fence was lifted to the epoch's floor. */
  raised: number;
  /** Of those, items parked failed_terminal by a restore (an equal-epoch refusal, `restore_mismatch`), now queued again (and woken). */
  requeued: number;
  /** Items already in the epoch (left alone). */
  alreadyAbove: number;
  /** Items that kept changing under the operation (three tries); run the command again to reach them. */
  lostRaces: number;
  complete: boolean;
  cursor?: string;
  auditId: string;
}

/**
 * The highest `above` raise-fences accepts: 10^12, the documented cap (infra/README.md). It lies in epoch 0 (an
 * epoch spans 2^40 ≈ 1.1 × 10^12 fences), so `above` alone never moves the epoch by more than one raise does: a
 * single request cannot jump to the last epoch.
 */
const MAX_FENCE_ABOVE = 10 ** 12;

/** The range of `above`: the new epoch's floor is above it; at most MAX_FENCE_ABOVE. */
const FenceAbove = { min: 0, max: MAX_FENCE_ABOVE } as const;

// The schemas here are built on first use (z.lazy: the same checks and issues), not at import: a cold start
// that never reaches them does not build them (test/unit/internal/module-scope-schemas.test.ts).
const tableNameSchema = z.lazy(() => z.string().check(z.regex(/^[A-Za-z0-9_.-]{3,255}$/, 'a DynamoDB table name')));

/**
 * The one schema of a raise-fences request, whatever door it comes through: the admin API's body is parsed by
 * it (with `actor`, the authenticated caller), the CLI calls raiseFences and bounds `--above` by FenceAbove.
 */
const raiseFencesSchema = z.lazy(() =>
  z
    .strictObject({
      above: z.optional(z.number().check(z.int(), z.gte(FenceAbove.min), z.lte(FenceAbove.max))),
      aboveEpoch: z.optional(z.number().check(z.int(), z.gte(0), z.lte(MAX_FENCE_EPOCH))),
      recordTables: z.optional(z.array(tableNameSchema).check(z.maxLength(100))),
      reason: reasonSchema,
      actor: actorSchema,
      caller: z.optional(callerSchema),
      epoch: z.optional(z.number().check(z.int(), z.gte(1), z.lte(MAX_FENCE_EPOCH))),
      cursor: z.optional(z.string()),
      max: z._default(z.number().check(z.int(), z.gte(1), z.lte(100_000)), 10_000),
    })
    .check(
      z.refine((input) => (input.cursor === undefined) === (input.epoch === undefined), {
        message: 'cursor and epoch go together: both come from the report of the run being resumed',
        path: ['epoch'],
      }),
    ),
);

const PAGE_SIZE = 100;
const TRIES = 3;

/** The cursor of one epoch's walk: a cursor of another epoch's walk is refused. */
function cursorScope(epoch: number): string {
  return `raise-fences@${epoch}`;
}

/**
 * After a restore (of the jobs table alone, or of every table: workers that ran at the failure hold fences the
 * restored tables never saw): raises the deployment's fence epoch once, above the stored epoch and above the
 * highest `writer_epoch` in `recordTables` (read with `deps.recordClient`), `above` and `aboveEpoch`, within
 * the epoch budget (fenceEpochBudget: past it ▶ IllegalTransitionError, nothing written), waits until every
 * store's cached epoch has expired (new rows then start in the new epoch), then lifts every work item below the
 * epoch's floor to it (one conditional UpdateItem each, on the state and fence it read, audited on the item).
 * Every fence issued from then on, on rows that exist and rows created later, is above every fence issued before;
 * a holder of an old fence is cut off as by a cancel. An item parked failed_terminal by a restore (an equal-epoch
 * refusal, `fence_same_claim_already_wrote`; or `restore_mismatch`, a record above every fence the row had issued)
 * is queued again with a fresh attempt
 * budget and woken. Walks the table with a paginated Scan, resumable with `cursor` + `epoch`, bounded by `max`
 * per call, one audit record per call. Bad input ▶ InvalidInputError, nothing written; record tables without
 * `deps.recordClient` ▶ ConfigurationError, nothing written; a record table that cannot be read throws, nothing
 * written; another raise to a higher epoch in between ▶ IllegalTransitionError (run again).
 * @example
 * let report = await raiseFences(deps, { recordTables: ['ledger'], reason: 'PITR restore of jobs table', actor });
 * while (!report.complete) report = await raiseFences(deps, { reason, actor, epoch: report.epoch, cursor: report.cursor });
 */
async function raiseFences(deps: AdminDeps, input: RaiseFencesInput): Promise<RaiseFencesReport> {
  try {
    return await raiseAndLift(deps, input);
  } catch (error) {
    await auditRefusal(deps, input, error);
    throw error;
  }
}

/**
 * A refused raise (bad input, an epoch past the budget, a raced or overtaken run) leaves one `raise_fences_refused`
 * record in the audit trail (`leasefence audit`, the console's Audit page), naming the refusal and the operator's
 * reason when it parses; nothing else is written. Unattributable input (no valid actor) and failures that are not
 * refusals (storage errors) write nothing. An audit write that fails leaves the refusal to the caller as it was.
 */
async function auditRefusal(deps: AdminDeps, input: RaiseFencesInput, error: unknown): Promise<void> {
  const refusal = refusalOf(error);
  const who = z.safeParse(z.strictObject({ actor: actorSchema, caller: z.optional(callerSchema) }), {
    actor: input.actor,
    ...(input.caller !== undefined ? { caller: input.caller } : {}),
  });
  if (refusal === undefined || !who.success) return;
  const reason = z.safeParse(reasonSchema, input.reason);
  await writeAuditRecord(deps, {
    ...who.data,
    action: 'raise_fences_refused',
    reason: `${refusal}${reason.success ? `; reason given: ${reason.data}` : ''}`,
    counts: refusal.startsWith('invalid input') ? {} : epochCounts(error),
  }).catch(() => undefined);
}

/** What a refusal says in the audit trail: the fields bad input named (never their values), or the refusal's text. */
function refusalOf(error: unknown): string | undefined {
  if (isLeasefenceError(error, InvalidInputError)) {
    return `invalid input (${error.issues.map((issue) => issue.path).join(', ')})`;
  }
  if (isLeasefenceError(error, IllegalTransitionError)) return error.message;
  return undefined;
}

/** The epochs a refusal names (requested, allowed, stored), as audit counts. */
function epochCounts(error: unknown): Record<string, number> {
  const current = (error as { current?: Record<string, unknown> }).current ?? {};
  return Object.fromEntries(
    Object.entries(current).filter((entry): entry is [string, number] => typeof entry[1] === 'number'),
  );
}

/** raiseFences once its refusals are audited: the raise (or resume) and one call's walk. */
async function raiseAndLift(deps: AdminDeps, input: RaiseFencesInput): Promise<RaiseFencesReport> {
  const valid = parseInput(raiseFencesSchema, input, 'raise fences');
  const action = { actor: valid.actor, reason: valid.reason, ...(valid.caller ? { caller: valid.caller } : {}) };
  const start = valid.epoch === undefined ? await raiseEpoch(deps, valid) : await resumeEpoch(deps, valid.epoch);
  let startKey: Record<string, unknown> | undefined = decodeCursor(cursorScope(start.epoch), valid.cursor, [
    TableKeys.partition,
    TableKeys.sort,
  ]);
  const report = { scanned: 0, raised: 0, requeued: 0, alreadyAbove: 0, lostRaces: 0 };
  do {
    const page = await deps.store.maintenance.scanWorkItems(Math.min(PAGE_SIZE, valid.max - report.scanned), startKey);
    const woken: WorkItem[] = [];
    for (const identity of page.identities) {
      report.scanned += 1;
      const outcome = await raiseOne(deps, identity, start.epoch, action);
      if (outcome.requeued) woken.push(outcome.requeued);
      report[outcome.kind] += 1;
    }
    report.requeued += woken.length;
    // The rows committed first; a lost wake-up is the sweeper's (it re-signals queued items that are due).
    if (woken.length > 0) await sendWakeSignals(deps.sqs, deps.queueUrl, woken);
    startKey = page.next;
  } while (startKey && report.scanned < valid.max);
  const cursor = encodeCursor(cursorScope(start.epoch), startKey);
  const audit = await writeAuditRecord(deps, {
    actor: valid.actor,
    ...(valid.caller ? { caller: valid.caller } : {}),
    action: 'raise_fences',
    reason: valid.reason,
    counts: {
      epoch: start.epoch,
      ...(start.floor !== undefined ? { floor: start.floor } : {}),
      ...report,
      complete: cursor ? 0 : 1,
    },
  });
  return {
    epoch: start.epoch,
    ...(start.floor !== undefined ? { floor: start.floor, recordsRead: start.recordsRead } : {}),
    ...report,
    complete: cursor === undefined,
    ...(cursor ? { cursor } : {}),
    auditId: audit.auditId,
  };
}

/** Where a walk starts: the epoch it lifts items into and, on a first call, the floor that epoch clears. */
interface WalkStart {
  epoch: number;
  floor?: number;
  recordsRead?: number;
}

/** First call: finds the floor, raises the epoch above it and above the stored one, waits out every cache. */
async function raiseEpoch(
  deps: AdminDeps,
  valid: { above?: number | undefined; aboveEpoch?: number | undefined; recordTables?: readonly string[] | undefined },
): Promise<WalkStart> {
  const tables = valid.recordTables ?? [];
  if (tables.length > 0 && !deps.recordClient) {
    throw new ConfigurationError('raise-fences was given record tables but has no client to read them with');
  }
  const records = deps.recordClient
    ? await readRecordFloor(deps.recordClient, tables)
    : { highestWriterEpoch: 0, recordsRead: 0 };
  const floor = Math.max(valid.above ?? 0, records.highestWriterEpoch);
  const stored = await deps.store.epochs.read();
  const epoch = Math.max(stored, fenceEpochOf(floor), valid.aboveEpoch ?? 0) + 1;
  const now = await deps.store.epochs.raise(epoch);
  if (now !== epoch) {
    throw new IllegalTransitionError(
      `another raise-fences moved the fence epoch to ${now} meanwhile; nothing was lifted, run it again`,
      { epoch: now },
    );
  }
  // Until every store's cached epoch has expired, a row could still be created in the old epoch.
  await new Promise((resolve) => setTimeout(resolve, deps.store.epochs.cacheMs));
  return { epoch, floor, recordsRead: records.recordsRead };
}

/** Resuming: the epoch must be the one the walk raised (still stored, never exceeded by a later raise). */
async function resumeEpoch(deps: AdminDeps, epoch: number): Promise<WalkStart> {
  const stored = await deps.store.epochs.read();
  if (stored !== epoch) {
    throw new IllegalTransitionError(
      `the fence epoch is ${stored}, not ${epoch}: the run being resumed was overtaken; run raise-fences again`,
      { epoch: stored },
    );
  }
  return { epoch };
}

/**
 * True when the item was parked by a refusal a restore can cause: a fence equal to a record's epoch, or a record's
 * epoch above every fence the row had issued (`restore_mismatch`).
 */
function parkedByRestore(item: WorkItem): boolean {
  return (
    item.state === WorkState.failed_terminal &&
    item.errorCode !== undefined &&
    RESTORE_REQUEUE_CODES.includes(item.errorCode) &&
    item.targetClass !== 'D'
  );
}

type RaiseOutcome = { kind: 'raised'; requeued?: WorkItem } | { kind: 'alreadyAbove' | 'lostRaces'; requeued?: never };

/** Lifts one item into the epoch, reading it fresh each try so a claim in between is seen and lifted too. */
async function raiseOne(
  deps: AdminDeps,
  identity: JobIdentity,
  epoch: number,
  action: OperatorAction,
): Promise<RaiseOutcome> {
  const fenceTo = epochFloor(epoch);
  for (let attempt = 0; attempt < TRIES; attempt += 1) {
    const item = await deps.store.get(identityOfItem(identity));
    if (!item || item.fence >= fenceTo) return { kind: 'alreadyAbove' };
    const requeue = parkedByRestore(item);
    const transition: OperatorTransition = requeue
      ? {
          ...requeueTransition(
            item,
            { ...action, auditAction: 'raise_fence_requeue' },
            deps.store.deadlines.shardOf(identityOfItem(identity)),
            adminClock(deps).now(),
          ),
          fenceTo,
        }
      : raiseFenceTransition(item, fenceTo, action);
    const applied = await deps.store.applyOperator(item, transition);
    if (applied.ok) return requeue ? { kind: 'raised', requeued: applied.item } : { kind: 'raised' };
  }
  return { kind: 'lostRaces' };
}

export { FenceAbove, MAX_FENCE_ABOVE, type RaiseFencesInput, type RaiseFencesReport, raiseFences };
