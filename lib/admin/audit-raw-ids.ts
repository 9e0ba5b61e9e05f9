import { hashIdentifier } from '../hashing.js';
import type { AuditMigration, ErasureScope } from '../store/index.js';
import { auditIdentifierKey } from './audit.js';
import type { AdminDeps } from './deps.js';

/** Audit records read per page when looking for raw ids (DynamoDB stops a page at 1 MB anyway). */
const PAGE_SIZE = 1_000;

/** Pages one look for raw-id audit records reads at most (then it says it did not see everything). */
const MAX_PAGES = 50;

/** What a look at the audit partition found: records still holding raw ids, and whether it read the whole partition. */
interface RawIdAuditCount {
  /** Records written before pseudonyms that still name the scope by raw id. */
  found: number;
  /** False when the look stopped at MAX_PAGES: more records may hold raw ids (NOT EVALUATED, never "none"). */
  complete: boolean;
}

/**
 * Counts the audit records that still name `scope` by raw id (written before audit records held pseudonyms only):
 * erasure cannot rewrite them (the audit partition is write-once for the admin), so it reports them. A Query of the
 * audit partition (consistent, filtered), at most MAX_PAGES pages; `complete` false past that.
 */
async function countRawIdAuditRecords(deps: AdminDeps, scope: ErasureScope): Promise<RawIdAuditCount> {
  let found = 0;
  let startKey: Record<string, unknown> | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const read = await deps.store.audit.rawIds.page(PAGE_SIZE, startKey, scope);
    found += read.records.length;
    startKey = read.next;
    if (!startKey) return { found, complete: true };
  }
  return { found, complete: false };
}

/** What the one-off migration did. */
interface PseudonymiseReport {
  /** Records whose raw ids were replaced by their pseudonyms. */
  rewritten: number;
  /** Records that changed between the read and the write (left as they were: run again). */
  skipped: number;
  /** True when the whole audit partition was read and every record found was rewritten. */
  complete: boolean;
}

/**
 * The one-off migration of audit records written before pseudonyms: replaces each raw `tenantId`/`operationId` by its
 * keyed pseudonym (`tenant`/`operation`, hashIdentifier under the key the audit writer uses), one conditional
 * UpdateItem per record through `migration`, at most `maxPages` pages read. It needs UpdateItem in the audit partition,
 * which every role of the construct is denied (write-once): run it with an operator's own credentials
 * (docs/RUNBOOK.md). Idempotent.
 */
async function pseudonymiseAuditRecords(
  deps: AdminDeps,
  migration: AuditMigration,
  maxPages = MAX_PAGES,
): Promise<PseudonymiseReport> {
  const key = auditIdentifierKey(deps);
  const pseudonymise = (rawId: string) => hashIdentifier(rawId, key);
  const report: PseudonymiseReport = { rewritten: 0, skipped: 0, complete: false };
  let startKey: Record<string, unknown> | undefined;
  for (let page = 0; page < maxPages; page += 1) {
    const read = await deps.store.audit.rawIds.page(PAGE_SIZE, startKey);
    for (const record of read.records) {
      if (await migration.pseudonymise(record, pseudonymise)) report.rewritten += 1;
      else report.skipped += 1;
    }
    startKey = read.next;
    if (!startKey) {
      report.complete = report.skipped === 0;
      break;
    }
  }
  return report;
}

export { countRawIdAuditRecords, type PseudonymiseReport, pseudonymiseAuditRecords, type RawIdAuditCount };
