import * as z from 'zod/mini';
import { parseInput } from '../internal/validation.js';
import { WorkState } from '../states.js';
import type { ReadCost } from '../store/index.js';
import { handlePage } from './page.js';
import type { SweepCursor, SweepOptions, SweepSummary } from './types.js';

/** Defaults of one sweep run. */
const SweepDefaults = {
  maxItemsPerRun: 500,
  dueGraceMs: 30_000,
  resignalIntervalMs: 120_000,
  concurrency: 16,
} as const;

// The schemas here are built on first use (z.lazy: the same checks and issues), not at import: a cold start
// that never reaches them does not build them (test/unit/internal/module-scope-schemas.test.ts).
const optionsSchema = z.lazy(() =>
  z.strictObject({
    maxItemsPerRun: z.number().check(z.int(), z.gte(1), z.lte(10_000)),
    shards: z.number().check(z.int(), z.gte(1), z.lte(1000)),
    dueGraceMs: z.number().check(z.int(), z.gte(0)),
    resignalIntervalMs: z.number().check(z.int(), z.gte(1)),
    concurrency: z.number().check(z.int(), z.gte(1), z.lte(100)),
    cursor: z.optional(z.object({ shard: z.number().check(z.int(), z.gte(0)) })),
  }),
);

/**
 * One bounded, idempotent pass over the sparse deadline index (Query per shard, oldest first; never a Scan).
 * Fair under any backlog: starting at the cursor's shard, every shard first gets an equal share of the
 * run's budget (what a shard leaves unused passes on to the next), then the rest goes to the shards that
 * have more. The next run starts at the first shard this one could not serve, or one shard later: with
 * `maxItemsPerRun ≥ shards` every shard is served in every run, otherwise within ⌈shards / maxItemsPerRun⌉
 * runs. Each shard is read from its oldest entry: handled entries leave the range (moved deadline, parked).
 * Expired + exhausted claims ▶ unknown (conditional on the observed fence, so a fresher claim always wins);
 * expired claims with attempts left, and queued items overdue by `dueGraceMs` ▶ one wake-up message, after
 * the item's deadline was moved ahead conditionally (re-signals are bounded to one per interval per item). Jobs
 * awaiting approval past their expiry ▶ cancelled (`approval_expired`), conditional on state, fence and expiry.
 * Reads at most `maxItemsPerRun` entries and returns a cursor to continue; lost races are counted, not thrown.
 * @example
 * const summary = await sweep({ store, sqs, queueUrl, cursor: await loadSweepCursor(store) });
 * await saveSweepCursor(store, summary.cursor);
 */
async function sweep(options: SweepOptions): Promise<SweepSummary> {
  const { store, sqs, queueUrl } = options;
  const settings = parseInput(
    optionsSchema,
    {
      maxItemsPerRun: options.maxItemsPerRun ?? SweepDefaults.maxItemsPerRun,
      shards: options.shards ?? store.deadlines.shardCount,
      dueGraceMs: options.dueGraceMs ?? SweepDefaults.dueGraceMs,
      resignalIntervalMs: options.resignalIntervalMs ?? SweepDefaults.resignalIntervalMs,
      concurrency: options.concurrency ?? SweepDefaults.concurrency,
      cursor: options.cursor,
    },
    'sweep options',
  );
  const now = options.clock ? options.clock.now() : store.now();
  const summary: SweepSummary = {
    scanned: 0,
    sweptToUnknown: 0,
    approvalsExpired: 0,
    resignalled: 0,
    resignalFailures: 0,
    lostRaces: 0,
    deadlinesAdvanced: 0,
    skipped: 0,
    readRequests: 0,
    itemsRead: 0,
    readCapacityUnits: 0,
    cursor: undefined,
    oldestUnknownAgeSeconds: 0,
    oldestAwaitingApprovalAgeSeconds: 0,
  };
  // A cursor from a different shard layout is dropped: the index is the truth, nothing is lost.
  const startShard = settings.cursor && settings.cursor.shard < settings.shards ? settings.cursor.shard : 0;
  const read = (shard: number, budget: number, startKey?: Record<string, unknown>) =>
    readShard({
      shard,
      budget,
      now,
      settings,
      summary,
      deps: { store, sqs, queueUrl },
      ...(startKey ? { startKey } : {}),
    });
  const unfinished: Array<{ shard: number; startKey: Record<string, unknown> }> = [];
  let served = 0;
  // Pass 1: an equal share of what is left for each shard still to come.
  for (; served < settings.shards; served += 1) {
    const left = settings.maxItemsPerRun - summary.scanned;
    if (left <= 0) break;
    const shard = (startShard + served) % settings.shards;
    const rest = await read(shard, Math.ceil(left / (settings.shards - served)));
    if (rest) unfinished.push({ shard, startKey: rest });
  }
  // Pass 2: the budget the others left, in the same order, from where each shard stopped.
  let backlog = false;
  for (const entry of unfinished) {
    const left = settings.maxItemsPerRun - summary.scanned;
    const rest = left > 0 ? await read(entry.shard, left, entry.startKey) : entry.startKey;
    backlog ||= rest !== undefined;
  }
  if (served < settings.shards || backlog) {
    summary.cursor = { shard: (startShard + (served < settings.shards ? served : 1)) % settings.shards };
  }

  // Parked items spread over the parked index's shards: the oldest is the oldest of each shard's first item.
  summary.oldestUnknownAgeSeconds = await oldestAgeSeconds(store, WorkState.unknown, now, summary);
  summary.oldestAwaitingApprovalAgeSeconds = await oldestAgeSeconds(store, WorkState.awaiting_approval, now, summary);
  return summary;
}

/** Age in seconds of the oldest item parked in `state` (0 when none), its reads counted into `summary`. */
async function oldestAgeSeconds(
  store: SweepOptions['store'],
  state: WorkState,
  now: number,
  summary: SweepSummary,
): Promise<number> {
  const oldest = await store.parked.oldest(state);
  countRead(summary, oldest.cost);
  return oldest.at === undefined ? 0 : Math.max(0, Math.floor((now - oldest.at) / 1000));
}

/** One shard's read within a run. */
interface ShardRead {
  shard: number;
  budget: number;
  startKey?: Record<string, unknown>;
  now: number;
  settings: z.infer<typeof optionsSchema>;
  summary: SweepSummary;
  deps: Pick<SweepOptions, 'store' | 'sqs' | 'queueUrl'>;
}

/** Reads and handles up to `budget` due entries of one shard; returns the key to go on from, if any is left. */
async function readShard(read: ShardRead): Promise<Record<string, unknown> | undefined> {
  const { store } = read.deps;
  let startKey = read.startKey;
  let taken = 0;
  do {
    const limit = read.budget - taken;
    const page = await store.deadlines.duePage(read.shard, read.now, limit, startKey);
    countRead(read.summary, page.cost);
    taken += page.items.length;
    read.summary.scanned += page.items.length;
    await handlePage(page.items, read.now, read.settings, read.summary, read.deps);
    startKey = page.next;
  } while (startKey && taken < read.budget);
  return startKey;
}

function countRead(summary: SweepSummary, cost: ReadCost): void {
  summary.readRequests += cost.requests;
  summary.itemsRead += cost.items;
  summary.readCapacityUnits += cost.capacityUnits;
}

export { type SweepCursor, SweepDefaults, type SweepOptions, type SweepSummary, sweep };
