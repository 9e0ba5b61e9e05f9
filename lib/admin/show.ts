import { ItemNotFoundError } from '../errors.js';
import { formatIdentity, type JobIdentity, parseIdentity } from '../identity.js';
import type { AuditEntry } from '../store/index.js';
import type { AdminDeps } from './deps.js';
import { type RecordView, recordView } from './views.js';

/** One work item as an operator sees it, with its audit history (oldest first). */
type ItemDetail = RecordView & { audit: AuditEntry[] };

/**
 * Reads one work item (strongly consistent) with the audit entries written by every operator transition.
 * Bad identity ▶ InvalidInputError; no such item ▶ ItemNotFoundError.
 * @example
 * const { state, fence, audit } = await showItem(deps, { tenantId: 'acme', operationId: 'refund-r_815' });
 */
async function showItem(deps: AdminDeps, identityInput: JobIdentity): Promise<ItemDetail> {
  const identity = parseIdentity(identityInput);
  const item = await deps.store.get(identity);
  if (!item) throw new ItemNotFoundError(`no work item ${formatIdentity(identity)}`, { ...identity });
  return { ...recordView(item as unknown as Record<string, unknown>), audit: item.audit ?? [] };
}

export { type ItemDetail, showItem };
