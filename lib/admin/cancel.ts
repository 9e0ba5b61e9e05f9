import { cancelStamps } from '../fenced/cancel-stamps.js';
import { type JobIdentity, parseIdentity } from '../identity.js';
import { parseInput } from '../internal/validation.js';
import type { OperatorAction, WorkItem } from '../store/index.js';
import type { AdminDeps } from './deps.js';
import { actionSchema } from './schemas.js';

/**
 * queued | claimed | unknown ▶ cancelled, raising the fence so a running worker's next fenced write is
 * rejected; audited in the same conditional write. The records the job type declares it owns (`ownedRecords`,
 * named on the row by its claims) are stamped with the new fence in the same transaction (right after the
 * cancel on an engine without transactions), so the holder's next record write is refused at once. Missing ▶ ItemNotFoundError; other state or a concurrent
 * change ▶ IllegalTransitionError; bad input ▶ InvalidInputError, nothing written.
 * @example
 * await cancelItem(deps, { tenantId: 'acme', operationId: 'refund-r_815' }, { actor, reason: 'customer withdrew' });
 */
async function cancelItem(deps: AdminDeps, identityInput: JobIdentity, input: OperatorAction): Promise<WorkItem> {
  const identity = parseIdentity(identityInput);
  const action = parseInput(actionSchema, input, 'cancel');
  return deps.store.cancel(identity, action, cancelStamps);
}

export { cancelItem };
