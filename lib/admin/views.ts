import { JobsIndex, stateOfParkedKey, TableKeys, TTL_ATTRIBUTE } from '../store/index.js';

/** Storage-only attributes (keys, index keys, TTL) that mean nothing to an operator. */
const HIDDEN_ATTRIBUTES = new Set<string>([
  TableKeys.partition,
  TableKeys.sort,
  JobsIndex.byDeadline.partition,
  JobsIndex.parkedByTenant.partition,
  TTL_ATTRIBUTE,
]);

/** An operator's view of a stored record: every attribute except storage keys. Work rows hold no payload. */
type RecordView = Record<string, unknown> & { kind: string };

/**
 * Projects a stored record (work item, quarantine or audit record) for the admin API. The cross-tenant parked
 * key is shown as the state it names (`unknown`, not its shard `unknown#7`): the shard is storage, not meaning.
 */
function recordView(record: Record<string, unknown>): RecordView {
  const view: Record<string, unknown> = {};
  for (const [attribute, value] of Object.entries(record)) {
    if (HIDDEN_ATTRIBUTES.has(attribute)) continue;
    view[attribute] =
      attribute === JobsIndex.parkedByState.partition && typeof value === 'string' ? stateOfParkedKey(value) : value;
  }
  return { ...view, kind: typeof record.kind === 'string' ? record.kind : 'unknown' };
}

export { type RecordView, recordView };
