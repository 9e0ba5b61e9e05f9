import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { LimitScope, SlotLimit } from '../../flow-control/concurrency-limits.js';
import type { Priority } from '../../flow-control/priorities.js';
import { sendConditional } from '../driver/conditional-write.js';
import type { StoreConnection } from '../driver/connection.js';
import { sendDelete, sendPut, sendQuery, sendUpdate } from '../driver/plain-requests.js';
import type { Claim } from '../work-items/work-item.js';
import {
  buildAcquireRequest,
  buildPartitionQuery,
  buildReleaseRequest,
  buildRenewRequest,
  buildWaiterDelete,
  buildWaiterPut,
  buildWakeWaitingRow,
  SlotKeyPrefix,
  slotKey,
  slotPartition,
  type WaiterRecord,
  waiterKey,
} from './slot-requests.js';
import { type LimitUsage, partitionItems, usageOf } from './slot-usage.js';

/** Free slots an acquirer tries at most per limit before it counts the limit as full (each try is one write). */
const MAX_TRIES = 3;
/** Waiters a releaser looks at, oldest first, to find one still waiting (stale ones are removed as it goes). */
const WAITERS_PER_WAKE = 5;

/** One slot a claim holds; `regranted` when it was taken from a holder whose lease had expired (it may still run). */
interface HeldSlot {
  readonly key: { pk: string; sk: string };
  readonly regranted: boolean;
}

/** The slots a claim took (one per limit), or the first limit that was full (nothing held then). */
type SlotGrant = { granted: true; held: HeldSlot[] } | { granted: false; full: SlotLimit; partition: string };

/**
 * Concurrency slots in the jobs table (slot-requests.ts has the format). Every decision is a conditional write:
 * a slot is taken only if free, lease-expired or held by an earlier claim of the same job; renewed and released only
 * by the claim that holds it; a waiter is woken by the one releaser whose conditional delete removed its item.
 * Reads only pick which slot to try and which waiter to wake. Errors other than a failed condition propagate.
 */
class SlotStore {
  constructor(private readonly db: StoreConnection) {}

  /**
   * One slot of each limit, in order, for `claim` until `leaseExpiresAt`; when a limit is full, the slots already
   * taken are released again and that limit is returned (nothing held).
   */
  async acquire(claim: Claim, limits: readonly SlotLimit[], leaseExpiresAt: number): Promise<SlotGrant> {
    const held: HeldSlot[] = [];
    for (const limit of limits) {
      const partition = slotPartition(claim.jobType, limit.scope);
      const slot = await this.acquireOne(partition, limit.limit, { claim, leaseExpiresAt, limit: limit.limit });
      if (slot === undefined) {
        await this.release(held, claim.claimId);
        return { granted: false, full: limit, partition };
      }
      held.push(slot);
    }
    return { granted: true, held };
  }

  /** Extends every held slot to the renewed lease; false when one was no longer this claim's (it was re-granted). */
  async renew(held: readonly HeldSlot[], claim: Claim, leaseExpiresAt: number): Promise<boolean> {
    let kept = true;
    for (const slot of held) {
      try {
        await sendUpdate(
          this.db.client,
          buildRenewRequest(this.db.table.tableName, slot.key, { claim, leaseExpiresAt }),
        );
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
        kept = false;
      }
    }
    return kept;
  }

  /** Frees the slots this claim still holds (a slot re-granted meanwhile is left to its new holder). */
  async release(held: readonly HeldSlot[], claimId: string): Promise<void> {
    for (const slot of held) {
      try {
        await sendDelete(this.db.client, buildReleaseRequest(this.db.table.tableName, slot.key, claimId));
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    }
  }

  /**
   * Records a job (its row already queued, waiting) as a waiter of the limit in `partition`, then looks once more:
   * a slot freed between the full limit and this record would have found no waiter, so the waiter wakes itself (or
   * an older one). `lane` is where its wake-up goes (the record keeps it for the releaser). Returns the waiter it
   * made due, if any, for the caller to send its wake-up in that waiter's lane.
   */
  async wait(
    partition: string,
    limit: number,
    claim: Claim,
    waiting: { since: number; lane: Priority },
  ): Promise<WaiterRecord | undefined> {
    const { tableName } = this.db.table;
    const waiter = { claim, waitingSince: waiting.since, lane: waiting.lane };
    await sendPut(this.db.client, buildWaiterPut(tableName, partition, waiter, this.db.clock.now()));
    const slots = await this.slotItems(partition);
    const now = this.db.clock.now();
    const live = slots.filter((slot) => Number(slot.leaseExpiresAt) >= now).length;
    return live < limit ? this.wakeOne(partition) : undefined;
  }

  /**
   * Makes the oldest job still waiting for the limit in `partition` due now and returns it (its wake-up is the
   * caller's to send), or undefined when none waits. Waiter items whose row moved on are removed on the way.
   */
  async wakeOne(partition: string): Promise<WaiterRecord | undefined> {
    const { client, table, clock } = this.db;
    const output = await sendQuery(
      client,
      buildPartitionQuery(table.tableName, partition, SlotKeyPrefix.wait, WAITERS_PER_WAKE),
    );
    for (const item of output.Items ?? []) {
      const waiter = item as unknown as WaiterRecord;
      try {
        await sendDelete(client, buildWaiterDelete(table.tableName, waiter));
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) continue; // another releaser took it
        throw error;
      }
      try {
        await sendUpdate(client, buildWakeWaitingRow(table.tableName, waiter, clock.now()));
        return waiter;
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    }
    return undefined;
  }

  /**
   * Removes the waiter items a job that waited since `waitingSince` left in its limits' partitions, once it holds its
   * slots (it got them by its own re-check, not by a wake-up that already removed the item). Unconditional deletes.
   */
  async forgetWaiter(claim: Claim, limits: readonly SlotLimit[], waitingSince: number): Promise<void> {
    for (const limit of limits) {
      const key = waiterKey(slotPartition(claim.jobType, limit.scope), claim, waitingSince);
      await sendDelete(this.db.client, { TableName: this.db.table.tableName, Key: key });
    }
  }

  /** The partition of a limit of a job type (what `wait`, `wakeOne` and `usage` take). */
  partitionOf(jobType: string, scope: LimitScope): string {
    return slotPartition(jobType, scope);
  }

  /** Slots in use (live and past their lease) and jobs waiting for one limit, read now (slot-usage.ts). */
  usage(partition: string): Promise<LimitUsage> {
    return usageOf(this.db, partition);
  }

  private async acquireOne(
    partition: string,
    limit: number,
    holder: { claim: Claim; leaseExpiresAt: number; limit: number },
  ): Promise<HeldSlot | undefined> {
    const now = this.db.clock.now();
    for (const index of await this.candidates(partition, limit, holder.claim, now)) {
      const request = buildAcquireRequest(this.db.table.tableName, partition, index, holder, now);
      const outcome = await sendConditional(this.db.client, { kind: 'put', ...request });
      if (!outcome.ok) continue;
      const old = outcome.attributes;
      const regranted =
        old !== undefined &&
        (old.tenantId !== holder.claim.identity.tenantId || old.operationId !== holder.claim.identity.operationId);
      return { key: slotKey(partition, index), regranted };
    }
    return undefined;
  }

  /**
   * Slot indexes worth a conditional write, at most MAX_TRIES, in random order: for a one-slot limit slot 0 without a
   * read; else those the partition shows free, lease-expired or this job's (a read that only picks, never decides).
   */
  private async candidates(partition: string, limit: number, claim: Claim, now: number): Promise<number[]> {
    if (limit === 1) return [0];
    const taken = new Set<string>();
    for (const slot of await this.slotItems(partition)) {
      const mine = slot.tenantId === claim.identity.tenantId && slot.operationId === claim.identity.operationId;
      if (!mine && Number(slot.leaseExpiresAt) >= now) taken.add(String(slot.sk));
    }
    const free: number[] = [];
    for (let index = 0; index < limit; index += 1) {
      if (!taken.has(slotKey(partition, index).sk)) free.push(index);
    }
    for (let index = free.length - 1; index > 0; index -= 1) {
      const other = Math.floor(Math.random() * (index + 1));
      [free[index], free[other]] = [free[other] as number, free[index] as number];
    }
    return free.slice(0, MAX_TRIES);
  }

  private slotItems(partition: string): Promise<Record<string, unknown>[]> {
    return partitionItems(this.db, partition, SlotKeyPrefix.slot);
  }
}

export { type HeldSlot, type SlotGrant, SlotStore };
