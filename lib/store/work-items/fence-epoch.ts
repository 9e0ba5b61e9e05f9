import type { GetCommandInput, UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { IllegalTransitionError, InvalidInputError } from '../../errors.js';
import { sendConditional } from '../driver/conditional-write.js';
import type { StoreConnection } from '../driver/connection.js';
import { sendGet } from '../driver/plain-requests.js';

/*
 * The fence epoch: a fence is `epoch × FENCE_EPOCH_UNIT + counter`, so fences order by deployment epoch first,
 * then by the per-item counter that claims raise. Epoch 0 is every fence issued before any raise. After a
 * restore an operator raises the epoch once (raise-fences): new rows start at the new epoch's floor and existing
 * rows are lifted to it, so every fence issued from then on is above every fence issued before, on any row.
 */

/** 2^40: the counter's range inside one epoch (10^11 claims of one item past a raise still fit). */
const FENCE_EPOCH_UNIT = 2 ** 40;
/** 2^13 − 1: the highest epoch; its highest fence, (epoch + 1) × 2^40 − 1, is 2^53 − 1, the largest safe integer. */
const MAX_FENCE_EPOCH = 2 ** 13 - 1;
/**
 * The epoch budget: a raise may set an epoch up to FENCE_EPOCH_BURST at once, and each FENCE_EPOCH_ACCRUAL_MS since
 * FENCE_EPOCH_BUDGET_START adds one more. A restore is rare and needs one raise; so no number of raises, however
 * fast, uses the 8,191 epochs up: at one more a week the budget reaches MAX_FENCE_EPOCH in the year 2181.
 */
const FENCE_EPOCH_BURST = 64;
/** Time that adds one epoch to the budget: one week. */
const FENCE_EPOCH_ACCRUAL_MS = 7 * 24 * 60 * 60 * 1000;
/** When the budget starts to grow (fixed: every store and every door computes the same budget). */
const FENCE_EPOCH_BUDGET_START = Date.UTC(2026, 0, 1);
/** How long a store trusts the epoch it read (default); raise-fences waits this long before it lifts rows. */
const DEFAULT_FENCE_EPOCH_CACHE_MS = 5_000;
/** Partition of the deployment's own settings; in no index, invisible to tenants, never written by workers. */
const SETTINGS_PARTITION = '#settings';

/** The epoch a fence belongs to. */
function fenceEpochOf(fence: number): number {
  return Math.floor(fence / FENCE_EPOCH_UNIT);
}

/** The lowest fence of `epoch`: a row created in it starts here (queued) and its first claim carries floor + 1. */
function epochFloor(epoch: number): number {
  return epoch * FENCE_EPOCH_UNIT;
}

/** The highest epoch a raise may set at `now` (see FENCE_EPOCH_BURST); never above MAX_FENCE_EPOCH. */
function fenceEpochBudget(now: number): number {
  const grown = Math.floor(Math.max(0, now - FENCE_EPOCH_BUDGET_START) / FENCE_EPOCH_ACCRUAL_MS);
  return Math.min(MAX_FENCE_EPOCH, FENCE_EPOCH_BURST + grown);
}

/** The first instant (ms) at which a raise may set `epoch`: the budget's start for the first FENCE_EPOCH_BURST. */
function fenceEpochAvailableAt(epoch: number): number {
  return FENCE_EPOCH_BUDGET_START + Math.max(0, epoch - FENCE_EPOCH_BURST) * FENCE_EPOCH_ACCRUAL_MS;
}

/** Key of the fence-epoch row. */
function fenceEpochKey(): { pk: string; sk: string } {
  return { pk: SETTINGS_PARTITION, sk: 'fence-epoch' };
}

/** One consistent read of the fence-epoch row. */
function buildFenceEpochRead(tableName: string): GetCommandInput {
  return { TableName: tableName, Key: fenceEpochKey(), ConsistentRead: true };
}

/** Sets the epoch to `epoch`, only if the row holds a lower one (or none): an epoch never goes back. */
function buildFenceEpochRaise(tableName: string, epoch: number, now: number): UpdateCommandInput {
  return {
    TableName: tableName,
    Key: fenceEpochKey(),
    UpdateExpression: 'SET #epoch = :epoch, #updatedAt = :now',
    ConditionExpression: 'attribute_not_exists(#epoch) OR #epoch < :epoch',
    ExpressionAttributeNames: { '#epoch': 'epoch', '#updatedAt': 'updatedAt' },
    ExpressionAttributeValues: { ':epoch': epoch, ':now': now },
  };
}

/** The stored epoch of a row read back: 0 when absent (a deployment that never raised). */
function storedEpoch(item: Record<string, unknown> | undefined): number {
  const epoch = item?.epoch;
  return typeof epoch === 'number' && Number.isSafeInteger(epoch) && epoch >= 0 ? epoch : 0;
}

/**
 * The deployment's fence epoch, kept in one row of the jobs table. `current` is what every row creation uses
 * (cached for `cacheMs`, timed from when the read was sent, so a raise is seen by every store within `cacheMs`);
 * `read` and `raise` are the operator's (raise-fences). A failed read throws: no row is created on a guess.
 */
class FenceEpochs {
  private cached: { epoch: number; sentAt: number } | undefined;
  /** The read in flight: concurrent creations share it (one GetItem, not one per job, on a cold store). */
  private pending: Promise<number> | undefined;

  constructor(
    private readonly db: StoreConnection,
    readonly cacheMs: number,
  ) {}

  /** The epoch new rows start in; read again once the cached value is `cacheMs` old. */
  async current(): Promise<number> {
    const now = this.db.clock.now();
    if (this.cached && now - this.cached.sentAt < this.cacheMs) return this.cached.epoch;
    this.pending ??= this.read()
      .then((epoch) => {
        this.cached = { epoch, sentAt: now };
        return epoch;
      })
      .finally(() => {
        this.pending = undefined;
      });
    return this.pending;
  }

  /** The stored epoch, read consistently now (no cache). */
  async read(): Promise<number> {
    const output = await sendGet(this.db.client, buildFenceEpochRead(this.db.table.tableName));
    return storedEpoch(output.Item);
  }

  /**
   * Raises the stored epoch to `epoch` (conditional: only upwards) and returns the epoch stored afterwards:
   * `epoch` (this raise, a lost response retried, or another raise to the same epoch) or higher (another raise
   * won). Not a positive integer ▶ InvalidInputError; above the budget at this moment (fenceEpochBudget, never
   * above MAX_FENCE_EPOCH) ▶ IllegalTransitionError saying when it will be available; nothing written either way.
   */
  async raise(epoch: number): Promise<number> {
    if (!Number.isSafeInteger(epoch) || epoch < 1) {
      throw new InvalidInputError(`fence epoch ${epoch} is out of range (1–${MAX_FENCE_EPOCH})`, [
        { path: 'epoch', message: `must be an integer from 1 to ${MAX_FENCE_EPOCH}` },
      ]);
    }
    const now = this.db.clock.now();
    const budget = fenceEpochBudget(now);
    if (epoch > budget) throw budgetRefusal(epoch, budget);
    const request = buildFenceEpochRaise(this.db.table.tableName, epoch, now);
    const outcome = await sendConditional(this.db.client, { kind: 'update', ...request });
    this.cached = undefined;
    this.pending = undefined;
    return outcome.ok ? epoch : await this.read();
  }
}

/** Why a raise to `epoch` is refused now, and when it would not be (never, past MAX_FENCE_EPOCH). */
function budgetRefusal(epoch: number, budget: number): IllegalTransitionError {
  const when =
    epoch > MAX_FENCE_EPOCH
      ? `past the last epoch (${MAX_FENCE_EPOCH}): never`
      : `available from ${new Date(fenceEpochAvailableAt(epoch)).toISOString()}`;
  return new IllegalTransitionError(
    `fence epoch ${epoch} is beyond the epoch budget (at most ${budget} now; ${FENCE_EPOCH_BURST} at once, one more each week, so raises cannot use the epochs up): ${when}; nothing was changed`,
    { allowedEpoch: budget, requestedEpoch: epoch },
  );
}

export {
  buildFenceEpochRaise,
  buildFenceEpochRead,
  DEFAULT_FENCE_EPOCH_CACHE_MS,
  epochFloor,
  FENCE_EPOCH_ACCRUAL_MS,
  FENCE_EPOCH_BUDGET_START,
  FENCE_EPOCH_BURST,
  FENCE_EPOCH_UNIT,
  FenceEpochs,
  fenceEpochAvailableAt,
  fenceEpochBudget,
  fenceEpochKey,
  fenceEpochOf,
  MAX_FENCE_EPOCH,
  SETTINGS_PARTITION,
};
