import * as z from 'zod/mini';
import { type FenceRejectedError, InvalidInputError } from '../errors.js';
import { parseInput } from '../internal/validation.js';
import type { Claim, TableClient } from '../store/index.js';
import { sendConditional } from '../store/index.js';
import { type JobTracer, SpanName, traced } from '../tracing/tracer.js';
import { type FencedBatchReport, incompleteBatchError, runFencedBatch } from './batch.js';
import type { BusinessCondition } from './conditions.js';
import type { FenceRule } from './fence-rules.js';
import { businessConditionError, classifyRejection, fenceRejectedError, SUPERSEDED_REASONS } from './record-outcome.js';
import {
  ADVANCE_RULE,
  buildFencedRecordWrite,
  CONFIRM_RULE,
  parseRecordWrite,
  type RecordChange,
  type RecordRef,
  type RecordWrite,
  recordIdentity,
} from './record-requests.js';

/** How a FencedRecords helper is bound: the client, the claim whose fence every write carries, and who to tell. */
interface FencedRecordsOptions {
  client: TableClient;
  /** The claim of the running attempt. Never a bare number: fences of different operations are unrelated. */
  claim: Claim;
  /** Called once, before the error is thrown, when a rejection shows this claim superseded (abort the job here). */
  onFenceRejected?: (error: FenceRejectedError) => void;
  /** Once aborted, no write is sent (its reason is thrown instead). */
  signal?: Pick<AbortSignal, 'throwIfAborted'>;
  /** Run before any write or batch starts (the runtime's lease-doubt guard); throws to refuse it. */
  guard?: () => void;
  /** With tracing on: one span per write sent (its table, kind and rule; never a key or a value). */
  tracer?: JobTracer | undefined;
}

/** A fenced write that succeeded: newly written, or found already written by this very call (lost response). */
type FencedWriteResult = { status: 'written' | 'already_applied'; item: Record<string, unknown> | undefined };

/** One record of a fenced batch. */
interface FencedBatchEntry {
  readonly ref: RecordRef;
  readonly change: RecordChange;
}

/** Batch options: concurrency (default 8), the rule (plain one-per-claim writes or confirms), throw or report. */
interface FencedBatchOptions {
  readonly concurrency?: number;
  readonly rule?: 'advance' | 'confirm';
  /** Default true: an incomplete batch throws (the report is in `error.report`). */
  readonly throwOnIncomplete?: boolean;
}

const ADVANCE = ADVANCE_RULE;
const CONFIRM = CONFIRM_RULE;
// The schemas here are built on first use (z.lazy: the same checks and issues), not at import: a cold start
// whose first events never reach them does not pay for building them (BENCHMARKS.md figure 5).
const batchOptionsSchema = z.lazy(() =>
  z.strictObject({
    concurrency: z.optional(z.number().check(z.int(), z.gte(1), z.lte(64))),
    rule: z.optional(z.enum(['advance', 'confirm'])),
    throwOnIncomplete: z.optional(z.boolean()),
  }),
);

/**
 * Fenced writes to class B records (records owned by ONE operation, keyed by its identity), bound to one
 * claim. Every write carries `writer_epoch` in its own condition, so an older claim never overwrites a
 * newer one. Failures say which condition failed: FenceRejectedError (the fence) or BusinessConditionError
 * (the caller's `where`); a retry of a write that already landed is reported as `already_applied`.
 * Never compare or share fences across operations: a record written by many operations needs class A.
 * @example
 * const records = new FencedRecords({ client, claim, onFenceRejected: (e) => abort.abort(e) });
 * await records.stamp(refund, { where: { status: { in: ['pending', 'sending'] } }, set: { status: 'sending' } });
 * await records.confirm(refund, { where: { status: 'sending' }, set: { status: 'sent' } });
 */
class FencedRecords {
  readonly claim: Claim;
  private readonly client: TableClient;
  private readonly onFenceRejected: ((error: FenceRejectedError) => void) | undefined;
  private readonly signal: Pick<AbortSignal, 'throwIfAborted'> | undefined;
  private readonly guard: (() => void) | undefined;
  private readonly tracer: JobTracer | undefined;
  private superseded: FenceRejectedError | undefined;

  constructor(options: FencedRecordsOptions) {
    if (!Number.isSafeInteger(options.claim?.fence) || options.claim.fence < 1) {
      throw new InvalidInputError('FencedRecords needs a Claim from the work-item store (fence >= 1)', [
        { path: 'claim.fence', message: 'must be a positive integer taken from a claim' },
      ]);
    }
    this.client = options.client;
    this.claim = options.claim;
    this.onFenceRejected = options.onFenceRejected;
    this.signal = options.signal;
    this.guard = options.guard;
    this.tracer = options.tracer;
  }

  /** One write per claim: lands only while the record's writer_epoch is absent or below my fence. */
  write(ref: RecordRef, change: RecordChange): Promise<FencedWriteResult> {
    return this.apply({ kind: 'update', ref, change }, ADVANCE);
  }

  /** Replaces the whole item under the one-write-per-claim rule (key attributes are taken from `ref`). */
  put(
    ref: RecordRef,
    item: Record<string, unknown>,
    options: { where?: BusinessCondition; writeId?: string } = {},
  ): Promise<FencedWriteResult> {
    return this.apply({ kind: 'put', ref, item, ...options }, ADVANCE);
  }

  /**
   * Marks the record with my fence at the start of an attempt (e.g. pending ▶ sending before an external
   * call). Accepts a record stamped by a lower fence: that attempt has lost its lease.
   */
  stamp(ref: RecordRef, change: RecordChange = {}): Promise<FencedWriteResult> {
    return this.apply({ kind: 'update', ref, change }, ADVANCE);
  }

  /** Lands only when my fence stamped the record (writer_epoch equal to mine): records a result I own. */
  confirm(ref: RecordRef, change: RecordChange): Promise<FencedWriteResult> {
    return this.apply({ kind: 'update', ref, change }, CONFIRM);
  }

  /** Several ordered writes within one claim: lands when epoch < mine, or epoch = mine and writer_seq < `seq`. */
  writeInSequence(ref: RecordRef, seq: number, change: RecordChange): Promise<FencedWriteResult> {
    return this.apply({ kind: 'update', ref, change }, { kind: 'sequence', seq });
  }

  /**
   * Fenced writes to many records of this operation, one conditional write each (BatchWriteItem has no
   * conditions). Returns a report naming every record's outcome; by default throws when it is incomplete.
   * All entries are validated first: bad input writes nothing.
   */
  async writeEach(entries: readonly FencedBatchEntry[], options: FencedBatchOptions = {}): Promise<FencedBatchReport> {
    this.guard?.();
    const valid = parseInput(batchOptionsSchema, options, 'fenced batch options');
    const rule = valid.rule === 'confirm' ? CONFIRM : ADVANCE;
    const parsed = entries.map((entry) =>
      parseRecordWrite({ kind: 'update', ref: entry.ref, change: entry.change }, rule),
    );
    assertDistinctRecords(parsed.map((entry) => entry.write.ref));
    const report = await runFencedBatch(
      parsed.map(({ write }) => ({ ref: write.ref, write: () => this.send(write, rule) })),
      valid.concurrency ?? 8,
    );
    if (!report.complete && valid.throwOnIncomplete !== false) throw incompleteBatchError(report);
    return report;
  }

  /** Validates, then sends through the one fenced path. */
  private async apply(write: RecordWrite, rule: FenceRule): Promise<FencedWriteResult> {
    const parsed = parseRecordWrite(write, rule);
    return await this.send(parsed.write, parsed.rule);
  }

  /** The single path of every protected-record write, in its span when tracing is on. */
  private send(write: RecordWrite, rule: FenceRule): Promise<FencedWriteResult> {
    const fields = () => ({ table: write.ref.tableName, write: write.kind, rule: rule.kind, fence: this.claim.fence });
    return traced(this.tracer, SpanName.fencedWrite, fields, () => this.sendFenced(write, rule));
  }

  /** Build with the fence, send, classify a refusal. */
  private async sendFenced(write: RecordWrite, rule: FenceRule): Promise<FencedWriteResult> {
    this.guard?.();
    if (this.superseded) throw this.superseded;
    this.signal?.throwIfAborted();
    const built = buildFencedRecordWrite(this.claim, write, rule);
    const outcome = await sendConditional(this.client, built.request);
    if (outcome.ok) return { status: 'written', item: outcome.attributes };
    const where = write.kind === 'update' ? write.change.where : write.where;
    const verdict = classifyRejection(outcome.current, {
      rule,
      fence: this.claim.fence,
      token: built.token,
      operation: built.operation,
      where,
    });
    if (verdict.kind === 'applied') return { status: 'already_applied', item: outcome.current };
    if (verdict.kind === 'business') throw businessConditionError(write.ref.tableName, verdict.unmet, outcome.current);
    const error = fenceRejectedError(this.claim, write.ref.tableName, rule, verdict.reason, outcome.current);
    if (SUPERSEDED_REASONS.includes(verdict.reason)) {
      this.superseded = error;
      this.onFenceRejected?.(error);
    }
    throw error;
  }
}

/** One batch may not write a record twice (the second write would be refused by the first one's fence). */
function assertDistinctRecords(refs: readonly RecordRef[]): void {
  const seen = new Set<string>();
  for (const [index, ref] of refs.entries()) {
    const id = recordIdentity(ref.tableName, ref.key);
    if (seen.has(id)) {
      throw new InvalidInputError(`fenced batch names the same record twice (entry ${index}); nothing was written`, [
        { path: `${index}.ref`, message: 'duplicate record' },
      ]);
    }
    seen.add(id);
  }
}

export {
  type BusinessCondition,
  type FencedBatchEntry,
  type FencedBatchOptions,
  type FencedBatchReport,
  FencedRecords,
  type FencedRecordsOptions,
  type FencedWriteResult,
  type RecordChange,
  type RecordRef,
};
