import { recordView } from '../../../lib/admin/views.js';
import type { AuditEntry } from '../../../lib/store/index.js';
import { cell, type Io, printJson } from '../output.js';
import { subject } from '../views.js';

/** What an operator action returns: the item as committed, and for requeues whether the wake-up went out. */
interface ActionResult {
  item: Record<string, unknown>;
  wake?: 'sent' | 'deferred';
}

/** Prints the result of resolve / retry / cancel: one sentence from the audit entry just written, or JSON. */
function printAction(io: Io, verb: string, result: ActionResult, json: boolean | undefined): void {
  if (json) {
    printJson(io, { ...result, item: recordView(result.item) });
    return;
  }
  const item = result.item;
  const entry = (item.audit as AuditEntry[] | undefined)?.at(-1);
  const wake =
    result.wake === 'sent'
      ? '; wake-up sent'
      : result.wake === 'deferred'
        ? '; the wake-up could not be sent now, the sweeper will re-signal it'
        : '';
  io.out(
    `${verb} ${subject(item)}: ${cell(entry?.from)} → ${cell(item.state)}, fence ${cell(item.fence)}, audited as ${cell(entry?.actor)}${wake}`,
  );
}

export { type ActionResult, printAction };
