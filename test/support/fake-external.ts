import type { ReconcileResult } from '../../lib/job-definition.js';

/** An external payment API with idempotency keys and lookup by key (class C): it dedupes as the provider defines. */
class FakeGateway {
  readonly charges = new Map<string, { amount: number; id: string }>();
  chargeCalls = 0;
  lookupCalls = 0;

  /** Creates a charge once per key; the same key again returns the first charge. */
  async charge(idempotencyKey: string, amount: number): Promise<{ id: string; amount: number }> {
    this.chargeCalls += 1;
    const existing = this.charges.get(idempotencyKey);
    if (existing) return existing;
    const created = { id: `ch_${this.charges.size + 1}`, amount };
    this.charges.set(idempotencyKey, created);
    return created;
  }

  /** Finds a charge by its idempotency key. */
  async lookup(idempotencyKey: string): Promise<{ id: string; amount: number } | undefined> {
    this.lookupCalls += 1;
    return this.charges.get(idempotencyKey);
  }
}

/** An external system with no key and no lookup (class D): every call is an effect. */
class FakeMailer {
  readonly sent: string[] = [];

  async send(to: string): Promise<void> {
    this.sent.push(to);
  }
}

/** A promise that never settles: the "process" is frozen here until the test abandons it. */
function freezeForever(): Promise<never> {
  return new Promise<never>(() => {});
}

/**
 * Polls `condition` every 10 ms, at most `maxWaitMs`; returns whether it became true (no timing assertion:
 * the bound is generous because a loaded CI machine or a serialized engine can be slow).
 */
async function waitUntil(condition: () => boolean | Promise<boolean>, maxWaitMs = 20_000): Promise<boolean> {
  const deadline = Date.now() + maxWaitMs;
  while (Date.now() < deadline) {
    if (await condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return condition();
}

/** A class C job's reconcile against the fake gateway: a charge found under the key is the done outcome. */
function reconcileWithGateway(gateway: FakeGateway) {
  return async (ctx: { idempotencyKey: string }): Promise<ReconcileResult> => {
    const found = await gateway.lookup(ctx.idempotencyKey);
    return found
      ? { status: 'done', outcome: { outcomeCode: 'charged', result: { chargeId: found.id } } }
      : { status: 'not_done' };
  };
}

export { FakeGateway, FakeMailer, freezeForever, reconcileWithGateway, waitUntil };
