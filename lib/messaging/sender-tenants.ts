import * as z from 'zod/mini';
import { tenantIdSchema } from '../identity.js';
import { principalMatches, uniqueIdSchema } from '../internal/principals.js';

// Built on first use (z.lazy: the same checks and issues), not at import: a cold start whose first events never
// reach this schema does not pay for building it (BENCHMARKS.md figure 5).
/**
 * Which principals may produce for which tenants. SQS stamps every message with its sender's IAM unique id
 * (`SenderId`: `AIDA…` for a user, `AROA…:session` for a role session), which no sender can forge; the message's
 * `tenantId` is the sender's claim. With a policy configured, the worker runs a message only when its sender may
 * produce for the tenant it names. A sender entry without `:session` covers every session of the role.
 */
const senderTenantsEntrySchema = z.lazy(() =>
  z.union([
    /** A producer for these tenants only (a tenant-scoped principal). */
    z.strictObject({
      sender: uniqueIdSchema,
      tenants: z.array(tenantIdSchema).check(z.minLength(1), z.maxLength(1000)),
    }),
    /** A producer for every tenant (a trusted service). */
    z.strictObject({ sender: uniqueIdSchema, tenants: z.literal('*') }),
    /**
     * A role whose session name is the tenant (`AROA…:acme` may produce for acme only): for a role only a trusted
     * broker may assume, naming each session after the tenant it is for (the tenant's own code never picks it).
     */
    z.strictObject({ sender: uniqueIdSchema, tenants: z.literal('session') }),
    /**
     * leasefence's own senders (worker, sweeper, admin, schedule tick): their wake-ups never create a row, so they may name any tenant; a
     * message the admin moved back from the DLQ carries its original sender (ORIGINAL_SENDER_ATTRIBUTE), checked instead.
     */
    z.strictObject({ sender: uniqueIdSchema, relay: z.literal(true) }),
  ]),
);

/** The whole policy (LEASEFENCE_SENDER_TENANTS, JSON). */
const senderTenantsSchema = z.lazy(() => z.array(senderTenantsEntrySchema).check(z.minLength(1), z.maxLength(5000)));

/** A parsed sender policy. */
type SenderTenants = z.infer<typeof senderTenantsSchema>;

/** Message attribute in which a redrive keeps the SenderId the message first had (trusted only from a relay). */
const ORIGINAL_SENDER_ATTRIBUTE = 'leasefence-original-sender';

/** Who sent a message, as SQS reported it: its SenderId and, for a relayed message, the original sender. */
interface MessageSender {
  senderId?: string;
  relayedFrom?: string;
}

/** Whether a message may be run for its tenant, and why not (codes and the sender's id only: nothing from the body). */
type SenderVerdict = { ok: true } | { ok: false; detail: string };

function allowsTenant(entry: SenderTenants[number], senderId: string, tenantId: string): boolean {
  if ('relay' in entry) return false;
  if (entry.tenants === '*') return true;
  if (entry.tenants === 'session') {
    const colon = senderId.indexOf(':');
    return colon > 0 && senderId.slice(colon + 1) === tenantId;
  }
  return entry.tenants.includes(tenantId);
}

/** A SenderId as it may appear in a stored detail: what SQS sends (ids and session names), bounded. */
function printable(senderId: string): string {
  return /^[\w+=,.@:-]{1,200}$/.test(senderId) ? senderId : 'an unprintable sender';
}

/** True when `senderId` is one of leasefence's relays (worker, sweeper, admin, schedule tick) in `policy`. */
function isRelay(policy: SenderTenants, senderId: string): boolean {
  return policy.some((entry) => 'relay' in entry && principalMatches(entry.sender, { userId: senderId }));
}

/**
 * Decides whether `sender` may produce for `tenantId` under `policy`: a known sender allowed for the tenant, or a
 * relay (worker, sweeper, admin, schedule tick) for any tenant; a relay's message that carries its original sender (a redriven message) is
 * decided as that sender's, and an original sender that is itself a relay (a redriven wake-up) passes. An unknown or
 * missing sender is refused.
 */
function checkSender(policy: SenderTenants, sender: MessageSender, tenantId: string): SenderVerdict {
  const { senderId } = sender;
  if (senderId === undefined || senderId === '') return { ok: false, detail: 'the message carries no SenderId' };
  const entries = policy.filter((entry) => principalMatches(entry.sender, { userId: senderId }));
  if (entries.length === 0) return { ok: false, detail: `sender ${printable(senderId)} is not a known producer` };
  if (entries.some((entry) => 'relay' in entry)) {
    // Only a relay's word on the original sender is taken; the original is decided on its own SenderId alone.
    return sender.relayedFrom === undefined
      ? { ok: true }
      : checkSender(policy, { senderId: sender.relayedFrom }, tenantId);
  }
  if (entries.some((entry) => allowsTenant(entry, senderId, tenantId))) return { ok: true };
  return { ok: false, detail: `sender ${printable(senderId)} may not produce for the tenant the message names` };
}

/**
 * The original sender of a message, the producer a `not-producer` approval is checked against: its SenderId, or for a
 * message a relay moved (a DLQ redrive) the sender the relay recorded. A recorded sender is taken only from a relay
 * named in `policy`; without a policy the worker cannot tell a relay, so a message naming one has no known producer
 * (never the relay: an approval that needs one is then refused, the safe direction).
 */
function originalSender(policy: SenderTenants | undefined, sender: MessageSender): string | undefined {
  const { senderId, relayedFrom } = sender;
  if (senderId === undefined || senderId === '') return undefined;
  if (relayedFrom === undefined) return senderId;
  if (policy === undefined) return undefined;
  return isRelay(policy, senderId) ? relayedFrom : senderId;
}

export {
  checkSender,
  isRelay,
  type MessageSender,
  ORIGINAL_SENDER_ATTRIBUTE,
  originalSender,
  type SenderTenants,
  type SenderVerdict,
  senderTenantsSchema,
};
