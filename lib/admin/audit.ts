import * as z from 'zod/mini';
import { DEVELOPMENT_IDENTIFIER_KEY, hashIdentifier, type IdentifierKey } from '../hashing.js';
import { parseInput } from '../internal/validation.js';
import type { AuditInput, AuditRecord } from '../store/index.js';
import { AUDIT_PARTITION, TableKeys } from '../store/index.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import { type AdminDeps, adminClock } from './deps.js';
import { pageLimitSchema } from './schemas.js';
import { type RecordView, recordView } from './views.js';

/** An audit record to write, naming what it concerned by raw ids (written as pseudonyms only). */
type AdminAuditInput = Omit<AuditInput, 'tenant' | 'operation'> & { tenantId?: string; operationId?: string };

/** The key audit pseudonyms are made under: the deployment's, else the development key (local stack, tests). */
function auditIdentifierKey(deps: Pick<AdminDeps, 'identifierKey'>): IdentifierKey {
  return deps.identifierKey ?? DEVELOPMENT_IDENTIFIER_KEY;
}

/**
 * Writes one audit record at the admin clock's time (never overwrites one), with the tenant and operation it
 * concerned as keyed pseudonyms (hashIdentifier under the deployment's key): erasure leaves no raw id in the audit
 * log. Throws on a storage error.
 */
function writeAuditRecord(deps: AdminDeps, input: AdminAuditInput): Promise<AuditRecord> {
  const { tenantId, operationId, ...rest } = input;
  const key = auditIdentifierKey(deps);
  const record: AuditInput = {
    ...rest,
    ...(tenantId !== undefined ? { tenant: hashIdentifier(tenantId, key) } : {}),
    ...(operationId !== undefined ? { operation: hashIdentifier(operationId, key) } : {}),
  };
  return deps.store.audit.put(record, adminClock(deps).now());
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

export {
  type AdminAuditInput,
  type AuditInput,
  type AuditRecord,
  auditIdentifierKey,
  listAuditRecords,
  writeAuditRecord,
};
