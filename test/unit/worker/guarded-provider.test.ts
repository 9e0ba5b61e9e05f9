import { describe, expect, it } from 'vitest';
import { LeaseInDoubtError } from '../../../lib/errors.js';
import { countingTelemetry } from '../../../lib/telemetry.js';
import { AttemptAbort } from '../../../lib/worker/attempt-abort.js';
import { guardedProvider } from '../../../lib/worker/guarded-provider.js';
import { createLeaseGuard } from '../../../lib/worker/lease-guard.js';

/** A provider client with a private field, an effect method and a lookup. */
class Gateway {
  #charges = new Map<string, number>();
  calls = 0;

  async charge(key: string, amount: number): Promise<number> {
    this.calls += 1;
    this.#charges.set(key, amount);
    return amount;
  }

  async find(key: string): Promise<number | undefined> {
    return this.#charges.get(key);
  }
}

/** A guard over a keeper whose doubt the test switches on. */
function guardFor(state: { doubt: LeaseInDoubtError | undefined }) {
  const telemetry = countingTelemetry();
  const guard = createLeaseGuard({ keeper: { doubt: () => state.doubt }, abort: new AttemptAbort(), telemetry });
  return { guard, telemetry };
}

describe('guardedProvider: a declared effect method of ctx.provider obeys lease doubt', () => {
  it('while the lease is confirmed, effects and lookups reach the client (private fields work)', async () => {
    const gateway = new Gateway();
    const { guard } = guardFor({ doubt: undefined });
    const provider = guardedProvider({ create: () => gateway, effects: ['charge'] }, gateway, guard);
    expect(await provider.charge('k', 5)).toBe(5);
    expect(await provider.find('k')).toBe(5);
    expect(gateway.calls).toBe(1);
  });

  it('in lease doubt an effect call is rejected before the provider is called, counted; a lookup still answers', async () => {
    const gateway = new Gateway();
    const state: { doubt: LeaseInDoubtError | undefined } = { doubt: undefined };
    const { guard, telemetry } = guardFor(state);
    const provider = guardedProvider({ create: () => gateway, effects: ['charge'] }, gateway, guard);
    await provider.charge('k', 5);
    state.doubt = new LeaseInDoubtError('lease in doubt: the local lease deadline passed');

    const refused = provider.charge('k2', 7);

    await expect(refused).rejects.toBe(state.doubt);
    expect(gateway.calls).toBe(1);
    expect(await provider.find('k')).toBe(5);
    expect(telemetry.counts.EffectRefusedInLeaseDoubt).toBe(1);
    expect(telemetry.events.map((event) => event.fields.effect)).toEqual(['provider.charge']);
  });
});
