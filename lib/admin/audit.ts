import * as z from 'zod/mini';
import { parseInput } from '../internal/validation.js';
import type { AuditInput, AuditRecord } from '../store/index.js';
import { AUDIT_PARTITION, TableKeys } from '../store/index.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import { type AdminDeps, adminClock } from './deps.js';
import { pageLimitSchema } from './schemas.js';
import { type RecordView, recordView } from './views.js';

/** Writes one audit record at the admin clock's time (never overwrites one). Throws on a storage error. */
function writeAuditRecord(deps: AdminDeps, input: AuditInput): Promise<AuditRecord> {
  return deps.store.audit.put(input, adminClock(deps).now());
}

// The schemas here are built on first use (z.lazy: the same checks and issues), not at import: a cold start
// that never reaches them does not build them (test/unit/internal/module-scope-schemas.test.ts).
const listAuditSchema = z.lazy(() =>
  z.strictObject({ limit: z._default(pageLimitSchema, 25), cursor: z.optional(z.string()) }),
);

/** Lists audit records newest first, one Query per page, with an opaque validated cursor. */
async function listAuditRecords(
  deps: AdminDeps,
  input: { limit?: number; cursor?: string } = {},
): Promise<{ records: RecordView[]; cursor?: string }> {
  const valid = parseInput(listAuditSchema, input, 'audit listing');
  const scope = `audit:${AUDIT_PARTITION}`;
  const startKey = decodeCursor(scope, valid.cursor, [TableKeys.partition, TableKeys.sort], {
    [TableKeys.partition]: AUDIT_PARTITION,
  });
  const page = await deps.store.audit.page(valid.limit, startKey);
  const cursor = encodeCursor(scope, page.next);
  return { records: page.items.map(recordView), ...(cursor ? { cursor } : {}) };
}

export { type AuditInput, type AuditRecord, listAuditRecords, writeAuditRecord };
