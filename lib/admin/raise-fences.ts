import * as z from 'zod';
import type { JobIdentity } from '../identity.js';
import { parseInput } from '../internal/validation.js';
import { type OperatorAction, raiseFenceTransition } from '../store/operator-transitions.js';
import { TableKeys } from '../store/table.js';
import { type CallerIdentity, identityOfItem } from '../store/work-item.js';
import { writeAuditRecord } from './audit.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import type { AdminDeps } from './deps.js';
import { actorSchema, callerSchema, reasonSchema } from './schemas.js';

/** Raise every work item's fence above `above`; `cursor` resumes an earlier call, `max` bounds this one. */
interface RaiseFencesInput {
  above: number;
  reason: string;
  actor: string;
  caller?: CallerIdentity;
  cursor?: string;
  max?: number;
}

/** What one call did; `complete` false means more of the table remains: call again with `cursor`. */
interface RaiseFencesReport {
  /** Work items read in this call. */
  scanned: number;
  /** Items whose fence was set to `above + 1`. */
  raised: number;
  /** Items already above `above` (left alone). */
  alreadyAbove: number;
  /** Items that kept changing under the operation (three tries); run the command again to reach them. */
  lostRaces: number;
  complete: boolean;
  cursor?: string;
  auditId: string;
}

/**
 * The highest `above` raise-fences accepts: 10^12, below 2^40. A fence is a DynamoDB number read as a JS number, so
 * it must stay under 2^53 for every later `fence + 1`; capping the raise at 10^12 leaves every item about 10^11
 * further claims below 2^40, and 13 bits above the counter for a deployment epoch (a fence ordered by epoch, then
 * counter). Above it, the next claim could make an item unclaimable with no way back through the API.
 */
const MAX_FENCE_RAISE = 1_000_000_000_000;

/** The range of `above`: every fence at or below it is raised to `above + 1`; at most MAX_FENCE_RAISE. */
const FenceAbove = { min: 0, max: MAX_FENCE_RAISE } as const;

/**
 * The one schema of a raise-fences request, whatever door it comes through: the admin API's body is parsed by
 * it (with `actor`, the authenticated caller), the CLI calls raiseFences and bounds `--above` by FenceAbove.
 */
const raiseFencesSchema = z.strictObject({
  above: z.number().int().min(FenceAbove.min).max(FenceAbove.max),
  reason: reasonSchema,
  actor: actorSchema,
  caller: callerSchema.optional(),
  cursor: z.string().optional(),
  max: z.number().int().min(1).max(100_000).default(10_000),
});

const CURSOR_SCOPE = 'raise-fences';
const PAGE_SIZE = 100;
const TRIES = 3;

/**
 * For when the jobs table was restored to an earlier point in time than the record tables: sets every work
 * item's fence that is at or below `above` to `above + 1` (one conditional UpdateItem each, on the state and
 * fence it read, audited on the item), so no claim can ever again carry a fence a record already saw. Walks
 * the whole table with a paginated Scan (a recovery tool, not a hot path), resumable with `cursor`, bounded
 * by `max` per call, and writes one audit record per call with the counts. Bad input (`above` over
 * MAX_FENCE_RAISE included) ▶ InvalidInputError, nothing written.
 * @example
 * let report = await raiseFences(deps, { above: 5_000, reason: 'PITR restore of jobs table', actor });
 * while (!report.complete) report = await raiseFences(deps, { above: 5_000, reason, actor, cursor: report.cursor });
 */
async function raiseFences(deps: AdminDeps, input: RaiseFencesInput): Promise<RaiseFencesReport> {
  const valid = parseInput(raiseFencesSchema, input, 'raise fences');
  const action = { actor: valid.actor, reason: valid.reason, ...(valid.caller ? { caller: valid.caller } : {}) };
  let startKey: Record<string, unknown> | undefined = decodeCursor(CURSOR_SCOPE, valid.cursor, [
    TableKeys.partition,
    TableKeys.sort,
  ]);
  const report = { scanned: 0, raised: 0, alreadyAbove: 0, lostRaces: 0 };
  do {
    const page = await deps.store.maintenance.scanWorkItems(Math.min(PAGE_SIZE, valid.max - report.scanned), startKey);
    for (const identity of page.identities) {
      report.scanned += 1;
      const outcome = await raiseOne(deps, identity, valid.above, action);
      report[outcome] += 1;
    }
    startKey = page.next;
  } while (startKey && report.scanned < valid.max);
  const cursor = encodeCursor(CURSOR_SCOPE, startKey);
  const audit = await writeAuditRecord(deps, {
    actor: valid.actor,
    ...(valid.caller ? { caller: valid.caller } : {}),
    action: 'raise_fences',
    reason: valid.reason,
    counts: { above: valid.above, ...report, complete: cursor ? 0 : 1 },
  });
  return { ...report, complete: cursor === undefined, ...(cursor ? { cursor } : {}), auditId: audit.auditId };
}

/** Raises one item, reading it fresh each try so a claim in between is seen and raised too. */
async function raiseOne(
  deps: AdminDeps,
  identity: JobIdentity,
  above: number,
  action: OperatorAction,
): Promise<'raised' | 'alreadyAbove' | 'lostRaces'> {
  for (let attempt = 0; attempt < TRIES; attempt += 1) {
    const item = await deps.store.get(identityOfItem(identity));
    if (!item || item.fence > above) return 'alreadyAbove';
    const applied = await deps.store.applyOperator(item, raiseFenceTransition(item, above + 1, action));
    if (applied.ok) return 'raised';
  }
  return 'lostRaces';
}

export { FenceAbove, MAX_FENCE_RAISE, type RaiseFencesInput, type RaiseFencesReport, raiseFences };
