import type { ValidIdentity } from '../../identity.js';
import type { StoreConnection } from '../driver/connection.js';
import { PayloadStore } from '../payloads/payloads.js';

/** What an approver's read found in the payloads table: the body with the hash it was stored under, or why none. */
type ReviewedBody =
  | { kind: 'stored'; body: unknown; payloadHash: string; intact: boolean }
  | { kind: 'erased' | 'absent' };

/**
 * The approver's read of a payload body (admin, `approvalPayload`): one consistent GetItem of the payloads table.
 * Reports an erased or never-stored slot as such, and a stored body with whether it still hashes to its stored hash;
 * the caller compares that hash with the row's. Never writes. A storage error propagates.
 */
class PayloadReview {
  constructor(private readonly db: StoreConnection) {}

  /** The body stored for `identity` in `payloadsTable` (see the class). */
  async body(payloadsTable: string, identity: ValidIdentity): Promise<ReviewedBody> {
    const slot = await new PayloadStore(this.db.client, payloadsTable, this.db.clock).inspect(identity);
    if (slot.kind !== 'stored') return { kind: slot.kind === 'erased' ? 'erased' : 'absent' };
    return { kind: 'stored', body: slot.body, payloadHash: slot.payloadHash, intact: slot.intact };
  }
}

export { PayloadReview, type ReviewedBody };
