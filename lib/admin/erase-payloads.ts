import * as z from 'zod/mini';
import { operationIdSchema, tenantIdSchema } from '../identity.js';
import { parseInput } from '../internal/validation.js';
import type { CallerIdentity, ErasureProgress } from '../store/index.js';
import { writeAuditRecord } from './audit.js';
import { countRawIdAuditRecords, type RawIdAuditCount } from './audit-raw-ids.js';
import { type AdminDeps, adminClock } from './deps.js';
import { type DeadLetterErasure, eraseDeadLetters } from './erase-dead-letters.js';
import { actorSchema, callerSchema, reasonSchema } from './schemas.js';

/** Whose payload bodies to erase (a tenant, or one of its operations), why, who asked, and at most how many in this call. */
interface EraseInput {
  tenantId: string;
  /** Erase this one operation of the tenant only (its body, row text, shadow row and DLQ messages). */
  operationId?: string;
  reason: string;
  actor: string;
  caller?: CallerIdentity;
  max?: number;
}

/** What an erase did; `complete` false means more bodies or row text remain: call again. */
interface EraseReport {
  /** Payload bodies erased (each row of the payloads table becomes a tombstone). */
  deleted: number;
  /** Work rows whose result, error message and step results were removed. */
  cleared: number;
  /** Shadow rows (shadow mode) whose executions' hashes and times became tombstones. */
  shadowCleared: number;
  /** Quarantine records (messages the worker refused) that named the scope and no longer hold its raw ids. */
  quarantineCleared: number;
  /** The DLQ pass (absent when no DLQ is configured): messages naming the scope were deleted with their bodies. */
  deadLetters?: DeadLetterErasure;
  /**
   * Audit records written before pseudonyms that still name the scope by raw id (looked for once the rest is
   * complete; absent before). Erasure cannot rewrite them: `leasefence audit-pseudonymise` does (docs/RUNBOOK.md).
   */
  rawIdAuditRecords?: RawIdAuditCount;
  /** True when the tables hold nothing more to erase and the DLQ pass saw every visible message. */
  complete: boolean;
  auditId: string;
}

// The schemas here are built on first use (z.lazy: the same checks and issues), not at import: a cold start
// that never reaches them does not build them (test/unit/internal/module-scope-schemas.test.ts).
/** Writes one erase call has made so far (bodies and rows together are bounded by `max`). */
const eraseSchema = z.lazy(() =>
  z.strictObject({
    tenantId: tenantIdSchema,
    operationId: z.optional(operationIdSchema),
    reason: reasonSchema,
    actor: actorSchema,
    caller: z.optional(callerSchema),
    max: z._default(z.number().check(z.int(), z.gte(1), z.lte(100_000)), 10_000),
  }),
);

/** DLQ messages one erase call reads at most (the rest is read by the next call). */
const DEAD_LETTERS_PER_CALL = 1_000;

/**
 * Removes the tenant's (or, with `operationId`, one operation's) inline payload bodies (Query on each of the tenant's partition keys, one conditional
 * UpdateItem per body, paginated, bounded by `max`). Each body's row stays as a tombstone with the payload
 * hash and no TTL, so the identity stays bound: a different payload afterwards is a PayloadConflictError,
 * nothing stored or sent. The tenant's work rows lose their text (result, error message, step results) and keep
 * identity, hash, state, codes and fence; its shadow rows' executions become tombstones (identity, job type and fence
 * kept); its quarantine records lose the raw tenant and operation ids (reason, detail and digest kept). `max` bounds
 * the writes of one call (bodies and rows). Then deletes from the DLQ every message naming the
 * scope (a carried body sits there for 14 days otherwise; eraseDeadLetters), up to DEAD_LETTERS_PER_CALL. Once all
 * that is complete, counts the audit records older versions wrote with the scope's raw ids (it cannot rewrite them).
 * Writes an audit record with the counts, naming the tenant and operation by keyed pseudonyms only.
 * @example
 * const { deleted, complete } = await erasePayloads(deps, { tenantId: 'acme', reason: 'GDPR request 42', actor });
 */
async function erasePayloads(deps: AdminDeps, input: EraseInput): Promise<EraseReport> {
  const valid = parseInput(eraseSchema, input, 'erase');
  const progress: ErasureProgress = { deleted: 0, cleared: 0, shadowCleared: 0, quarantineCleared: 0 };
  const scope = { tenantId: valid.tenantId, ...(valid.operationId ? { operationId: valid.operationId } : {}) };
  let complete = false;
  let deadLetters: DeadLetterErasure | undefined;
  let rawIdAuditRecords: RawIdAuditCount | undefined;
  let failure: unknown;
  try {
    complete = await deps.store.maintenance.eraseTenantData(deps.payloadsTable, scope, {
      max: valid.max,
      progress,
      clock: adminClock(deps),
    });
    deadLetters = await eraseDeadLetters(deps, scope, DEAD_LETTERS_PER_CALL);
    complete &&= deadLetters?.complete ?? true;
    if (complete) rawIdAuditRecords = await countRawIdAuditRecords(deps, scope);
  } catch (error) {
    complete = false;
    failure = error;
  }
  const { deleted, cleared } = progress;
  const shadowCleared = progress.shadowCleared ?? 0;
  const quarantineCleared = progress.quarantineCleared ?? 0;
  // Audited even when interrupted: bodies already deleted must be on the record.
  const audit = await writeAuditRecord(deps, {
    actor: valid.actor,
    ...(valid.caller ? { caller: valid.caller } : {}),
    action: 'erase_payloads',
    reason: valid.reason,
    ...scope,
    counts: {
      deleted,
      cleared,
      shadowCleared,
      quarantineCleared,
      ...(deadLetters
        ? { deadLettersRemoved: deadLetters.removed, deadLettersUnattributed: deadLetters.unattributed }
        : {}),
      ...(rawIdAuditRecords ? { rawIdAuditRecords: rawIdAuditRecords.found } : {}),
      complete: complete ? 1 : 0,
      ...(failure !== undefined ? { aborted: 1 } : {}),
    },
  });
  if (failure !== undefined) throw failure;
  return {
    deleted,
    cleared,
    shadowCleared,
    quarantineCleared,
    ...(deadLetters ? { deadLetters } : {}),
    ...(rawIdAuditRecords ? { rawIdAuditRecords } : {}),
    complete,
    auditId: audit.auditId,
  };
}

export { type EraseInput, type EraseReport, erasePayloads };
