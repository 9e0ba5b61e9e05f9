import { describe, expect, it } from 'vitest';
import { checkSender, type SenderTenants, senderTenantsSchema } from '../../../lib/messaging/sender-tenants.js';

const ACME = 'AROAACMEPRODUCER0000';
const API = 'AROAAPIPRODUCER00000';
const BROKER = 'AROABROKERSESSIONS00';
const ADMIN = 'AROAADMINRELAY000000';

const policy: SenderTenants = senderTenantsSchema.parse([
  { sender: ACME, tenants: ['acme'] },
  { sender: API, tenants: '*' },
  { sender: BROKER, tenants: 'session' },
  { sender: ADMIN, relay: true },
]);

describe('which sender may produce for which tenant', () => {
  it.each([
    ['a tenant producer for its own tenant', { senderId: `${ACME}:lambda-acme` }, 'acme', true],
    ['…never for another tenant', { senderId: `${ACME}:lambda-acme` }, 'globex', false],
    ['a trusted producer for any tenant', { senderId: `${API}:api` }, 'globex', true],
    ['a broker session named after the tenant', { senderId: `${BROKER}:globex` }, 'globex', true],
    ['…not for a tenant its session is not named after', { senderId: `${BROKER}:acme` }, 'globex', false],
    ['…nor without a session', { senderId: BROKER }, 'globex', false],
    ["the admin's own wake-up", { senderId: `${ADMIN}:admin` }, 'globex', true],
    [
      'a redrive of acme’s message naming globex',
      { senderId: `${ADMIN}:admin`, relayedFrom: `${ACME}:x` },
      'globex',
      false,
    ],
    ['a redrive of acme’s message naming acme', { senderId: `${ADMIN}:admin`, relayedFrom: `${ACME}:x` }, 'acme', true],
    [
      'a redriven wake-up of a relay (a relay as the original sender)',
      { senderId: `${ADMIN}:a`, relayedFrom: `${ADMIN}:b` },
      'acme',
      true,
    ],
    [
      'a redrive whose original sender is unknown',
      { senderId: `${ADMIN}:a`, relayedFrom: 'AROAUNKNOWN000000000:x' },
      'acme',
      false,
    ],
    ['an unknown sender', { senderId: 'AROAUNKNOWN000000000:x' }, 'acme', false],
    ['a message without SenderId', {}, 'acme', false],
    [
      'an original-sender attribute from a non-relay',
      { senderId: `${ACME}:x`, relayedFrom: `${API}:api` },
      'globex',
      false,
    ],
  ])('%s ▶ allowed: %s', (_name, sender, tenantId, allowed) => {
    expect(checkSender(policy, sender, tenantId).ok).toBe(allowed);
  });

  it('names the sender in the refusal, and nothing from the message', () => {
    expect(checkSender(policy, { senderId: `${ACME}:lambda-acme` }, 'globex')).toEqual({
      ok: false,
      detail: `sender ${ACME}:lambda-acme may not produce for the tenant the message names`,
    });
  });

  it('refuses a policy with a wildcard sender or an empty tenant list', () => {
    expect(senderTenantsSchema.safeParse([{ sender: '*', tenants: '*' }]).success).toBe(false);
    expect(senderTenantsSchema.safeParse([{ sender: ACME, tenants: [] }]).success).toBe(false);
  });
});
