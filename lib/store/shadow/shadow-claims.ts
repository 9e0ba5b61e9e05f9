import * as z from 'zod/mini';
import { UnexpectedItemError } from '../../errors.js';
import type { JobIdentity } from '../../identity.js';
import type { Key, StoreConnection } from '../driver/connection.js';
import { sendScan, sendUpdate } from '../driver/plain-requests.js';
import {
  buildShadowEnd,
  buildShadowScan,
  buildShadowStart,
  ERASED_EXECUTION_HASH,
  MAX_SHADOW_EXECUTIONS,
  type ShadowExecution,
  type ShadowOutcome,
  type ShadowStart,
} from './shadow-requests.js';

// The schemas here are built on first use (z.lazy: the same checks and issues), not at import: a cold start
// whose first events never reach them does not pay for building them (BENCHMARKS.md figure 5).
const executionSchema = z.lazy(() =>
  z.object({
    s: z.number(),
    l: z.number(),
    h: z.string(),
    e: z.optional(z.number()),
    o: z.optional(z.enum(['succeeded', 'failed'])),
  }),
);

const shadowRowSchema = z.lazy(() =>
  z.object({
    kind: z.literal('shadow'),
    tenantId: z.string(),
    operationId: z.string(),
    jobType: z.string(),
    fence: z.number().check(z.int(), z.gte(1)),
    x: z.array(executionSchema),
  }),
);

/** A shadow row as the report reads it: the identity, its job type, and its executions in fence order. */
interface ShadowRow extends JobIdentity {
  jobType: string;
  fence: number;
  executions: ShadowExecution[];
  /**
   * The row holds MAX_SHADOW_EXECUTIONS executions (tombstones included): every later start was refused, so what
   * the identity ran after them is not recorded and the row cannot show it ran clean.
   */
  full: boolean;
}

/** Every shadow row the read reached, how many rows it could not parse, and whether it reached the table's end. */
interface ShadowRead {
  rows: ShadowRow[];
  unreadable: number;
  complete: boolean;
  /** Executions a tenant's erasure turned into tombstones: left out of `rows`, so not evaluated. */
  erased?: number;
}

/** Per-write bound: a shadow write that cannot finish in this time is abandoned (and counted by the caller). */
interface WriteBound {
  signal?: AbortSignal;
}

/**
 * Shadow claims (shadow mode): one row per identity beside its work item, never touching the work item. Writes
 * are one conditional UpdateItem each with no read before them; they throw on any failure (the shadow wrapper
 * catches and counts). The report's read is a consistent, paginated Scan of the shadow rows.
 */
class ShadowClaims {
  constructor(private readonly db: StoreConnection) {}

  /** Records the start of an execution; returns its fence. Throws on a refused or failed write. */
  async start(start: ShadowStart, bound: WriteBound = {}): Promise<number> {
    const output = await sendUpdate(
      this.db.client,
      buildShadowStart(this.db.table.tableName, start),
      bound.signal ? { abortSignal: bound.signal } : {},
    );
    const fence = output.Attributes?.fence;
    if (typeof fence !== 'number')
      throw new UnexpectedItemError('the shadow row holds no fence after its start', output.Attributes);
    return fence;
  }

  /** Records the end of the execution with `fence`. Throws on a refused or failed write. */
  async end(
    identity: JobIdentity,
    fence: number,
    end: { endedAt: number; outcome: ShadowOutcome },
    bound: WriteBound = {},
  ): Promise<void> {
    await sendUpdate(
      this.db.client,
      buildShadowEnd(this.db.table.tableName, identity, fence, end),
      bound.signal ? { abortSignal: bound.signal } : {},
    );
  }

  /**
   * Reads every shadow row, page by page, at most `maxPages` pages: `complete` is false when it stopped before
   * the table's end. Rows that do not parse are counted, not dropped silently.
   */
  async readAll(maxPages = 1_000, pageSize = 500): Promise<ShadowRead> {
    const rows: ShadowRow[] = [];
    let unreadable = 0;
    let erased = 0;
    let startKey: Key | undefined;
    for (let page = 0; page < maxPages; page += 1) {
      const output = await sendScan(this.db.client, buildShadowScan(this.db.table.tableName, pageSize, startKey));
      for (const item of output.Items ?? []) {
        const parsed = shadowRowSchema.safeParse(item);
        if (!parsed.success) {
          unreadable += 1;
          continue;
        }
        const row = toRow(parsed.data);
        erased += parsed.data.x.length - row.executions.length;
        rows.push(row);
      }
      startKey = output.LastEvaluatedKey;
      if (!startKey) return { rows, unreadable, complete: true, erased };
    }
    return { rows, unreadable, complete: false, erased };
  }
}

function toRow(row: z.output<typeof shadowRowSchema>): ShadowRow {
  return {
    tenantId: row.tenantId,
    operationId: row.operationId,
    jobType: row.jobType,
    fence: row.fence,
    full: row.x.length >= MAX_SHADOW_EXECUTIONS,
    // Tombstones of an erasure are not executions any more: the report counts them apart (not evaluated).
    executions: row.x
      .filter((execution) => execution.h !== ERASED_EXECUTION_HASH)
      .map((execution) => ({
        s: execution.s,
        l: execution.l,
        h: execution.h,
        ...(execution.e !== undefined ? { e: execution.e } : {}),
        ...(execution.o !== undefined ? { o: execution.o } : {}),
      })),
  };
}

export { ShadowClaims, type ShadowRead, type ShadowRow };
