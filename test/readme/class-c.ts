// The README's class C example, kept here so the typecheck compiles it (a unit test checks the README shows this
// file verbatim between the CLASS_C markers) and `leasefence check --jobs test/readme/class-c.ts` rates it GO
// (test/integration/cli/check-cases.test.ts).
// CLASS_C:BEGIN
import { defineJob } from 'leasefence';
import * as z from 'zod';

/** Your payment provider's client: it deduplicates by idempotency key and can look a key up. */
interface Payments {
  charge(idempotencyKey: string, amount: number): Promise<{ chargeId: string }>;
  find(idempotencyKey: string): Promise<{ chargeId: string } | undefined>;
}

// A stand-in that behaves like the provider (the same key returns the same charge); use your provider's SDK.
const charges = new Map<string, { chargeId: string }>();
const payments: Payments = {
  charge: async (key) => {
    const charge = charges.get(key) ?? { chargeId: `ch_${charges.size + 1}` };
    charges.set(key, charge);
    return charge;
  },
  find: async (key) => charges.get(key),
};

// Class C: the key makes a repeat harmless; before any retry, reconcile looks the first call up by that key.
export const chargeCard = defineJob({
  type: 'charge-card',
  version: 1,
  target: 'C',
  owner: 'payments-team',
  alertRoute: 'pagerduty:payments',
  reversibility: 'irreversible',
  payload: z.strictObject({ amount: z.number().positive() }),
  // Declared: the runtime refuses a charge once the lease is in doubt, and `check` counts and faults the calls.
  // keyRetentionMs: how long the provider keeps a key (24 h here); an operator retry past it needs a statement.
  provider: { create: () => payments, effects: ['charge'], keyRetentionMs: 24 * 60 * 60 * 1000 },
  run: async (ctx) => {
    const { chargeId } = await ctx.provider.charge(ctx.idempotencyKey, ctx.payload.amount);
    return { outcomeCode: 'charged', result: { chargeId } };
  },
  reconcile: async (ctx) => {
    const found = await ctx.provider.find(ctx.idempotencyKey);
    if (!found) return { status: 'not_done' };
    return { status: 'done', outcome: { outcomeCode: 'charged', result: { chargeId: found.chargeId } } };
  },
});

// The jobs module `leasefence check --jobs` reads: the job types and a sample payload for each.
export const jobs = [chargeCard];
export const conformance = { samplePayloads: { 'charge-card': [{ amount: 70.25 }, { amount: 1200 }] } };
// CLASS_C:END
