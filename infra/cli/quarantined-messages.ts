import type { AdminDeps } from '../../lib/admin/deps.js';
import { listItems } from '../../lib/admin/list.js';
import type { RecordView } from '../../lib/admin/views.js';
import { ItemNotFoundError } from '../../lib/errors.js';
import { formatIdentity, type JobIdentity } from '../../lib/identity.js';
import { WorkState } from '../../lib/states.js';
import { TargetError } from './errors.js';
import { cell } from './output.js';

/** Pages of the tenant's quarantine listing read at most when looking for an identity's messages. */
const MAX_PAGES = 20;

/** The quarantined messages that named one identity, and whether the tenant's whole listing was read. */
interface QuarantinedMessages {
  records: RecordView[];
  complete: boolean;
}

/**
 * The quarantine records (messages the worker could not interpret) that named `identity`: a message for an
 * unknown job type or version, or a changed payload. They are kept apart from work items, keyed by message
 * id; found through the tenant's quarantined listing (a Query per parked-index shard, never a Scan), at most
 * MAX_PAGES pages of 100 (`complete: false` past that).
 */
async function quarantinedMessagesFor(admin: AdminDeps, identity: JobIdentity): Promise<QuarantinedMessages> {
  const records: RecordView[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const listed = await listItems(admin, {
      state: WorkState.quarantined,
      tenantId: identity.tenantId,
      limit: 100,
      ...(cursor ? { cursor } : {}),
    });
    records.push(
      ...listed.items.filter((row) => row.kind === 'quarantine' && row.operationId === identity.operationId),
    );
    cursor = listed.cursor;
    if (!cursor) return { records, complete: true };
  }
  return { records, complete: false };
}

/** One line per message: its id, why it was quarantined, and the detail (codes and paths only, never values). */
function describeMessages(records: readonly RecordView[]): string {
  return records
    .map((record) => `message ${cell(record.messageId)}: ${cell(record.reason)} (${cell(record.detail)})`)
    .join('; ');
}

/**
 * Runs an action on one work item; when there is no such item but the worker quarantined messages that named
 * it, the error says so: nothing ran under that identity, so there is nothing to retry, cancel or resolve;
 * the producer's message must be fixed and sent again. Any other error passes through unchanged.
 */
async function explainMissingItem<T>(
  admin: AdminDeps,
  identity: JobIdentity,
  verb: string,
  action: () => Promise<T>,
): Promise<T> {
  try {
    return await action();
  } catch (error) {
    if (!(error instanceof ItemNotFoundError)) throw error;
    const { records } = await quarantinedMessagesFor(admin, identity);
    if (records.length === 0) throw error;
    throw new TargetError(
      `no work item ${formatIdentity(identity)} to ${verb}: the worker quarantined ${records.length === 1 ? 'the message' : `${records.length} messages`} that named it before any work item existed (${describeMessages(records)}), so nothing ran; fix what the reason names (e.g. register the job type or version in the worker) and send the job again`,
    );
  }
}

export { describeMessages, explainMissingItem, type QuarantinedMessages, quarantinedMessagesFor };
