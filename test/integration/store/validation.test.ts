import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../lib/errors.js';
import { MAX_PAYLOAD_BYTES, payloadHash } from '../../../lib/hashing.js';
import type { JobIdentity } from '../../../lib/identity.js';
import { WorkState } from '../../../lib/states.js';
import type { NewWorkItem } from '../../../lib/store/requests.js';
import { createTestTables, type TestTables } from '../../support/engine.js';
import {
  expectAbsent,
  expectCreatedClaim,
  expectRejection,
  expectState,
  readRawItem,
} from '../../support/expectations.js';
import { newIdentity, newWorkItem } from '../../support/factories.js';
import { type StoreFixture, storeFixture } from '../../support/store.js';

const badIdentities: Array<[string, JobIdentity, string]> = [
  ['empty tenant', { tenantId: '', operationId: 'op-1' }, 'tenantId'],
  ['empty operation', { tenantId: 'acme', operationId: '' }, 'operationId'],
  ['tenant of 65 chars', { tenantId: 't'.repeat(65), operationId: 'op-1' }, 'tenantId'],
  ['operation of 257 chars', { tenantId: 'acme', operationId: 'o'.repeat(257) }, 'operationId'],
  ['tenant with a space', { tenantId: 'ac me', operationId: 'op-1' }, 'tenantId'],
  ['operation with an emoji', { tenantId: 'acme', operationId: 'op-\ud83d\ude00' }, 'operationId'],
  ['tenant with #', { tenantId: 'ac#me', operationId: 'op-1' }, 'tenantId'],
  ['operation with #', { tenantId: 'acme', operationId: 'op#1' }, 'operationId'],
];

class Invoice {
  constructor(readonly total: number) {}
}
const cyclic: Record<string, unknown> = {};
cyclic.me = cyclic;

const badPayloads: Array<[string, unknown, string]> = [
  ['undefined', undefined, 'payload'],
  ['an undefined field', { note: undefined }, 'payload.note'],
  ['NaN', { total: Number.NaN }, 'payload.total'],
  ['Infinity', { total: Number.POSITIVE_INFINITY }, 'payload.total'],
  ['BigInt', { total: 12n }, 'payload.total'],
  ['a function', { total: () => 12 }, 'payload.total'],
  ['a cycle', cyclic, 'payload.me'],
  ['a class instance', { invoice: new Invoice(12) }, 'payload.invoice'],
  ['an oversize body', { blob: 'x'.repeat(MAX_PAYLOAD_BYTES) }, 'payload'],
];

describe('bad input is rejected before any request', () => {
  let tables: TestTables;
  let fixture: StoreFixture;

  beforeAll(async () => {
    tables = await createTestTables('validation');
    fixture = storeFixture(tables.jobsTable);
  });
  afterAll(async () => {
    fixture.client.destroy();
    await tables.drop();
  });

  it.each(badIdentities)(
    'enqueue with %s: InvalidInputError naming identity.%s, nothing sent',
    async (_l, identity, field) => {
      fixture.counter.reset();

      const error = await expectRejection(
        fixture.store.enqueue(newWorkItem(identity), { owner: 'w', leaseMs: 1_000 }),
        InvalidInputError,
      );

      expect(error.issues.map((issue) => issue.path)).toEqual([`identity.${field}`]);
      expect(fixture.counter.total()).toBe(0);
    },
  );

  it.each(badIdentities)(
    'claim, get and cancel with %s: InvalidInputError naming %s, nothing sent',
    async (_l, identity, field) => {
      fixture.counter.reset();

      const claim = await expectRejection(
        fixture.store.claim(identity, { owner: 'w', leaseMs: 1_000 }),
        InvalidInputError,
      );
      const get = await expectRejection(fixture.store.get(identity), InvalidInputError);
      const cancel = await expectRejection(
        fixture.store.cancel(identity, { actor: 'a', reason: 'r' }),
        InvalidInputError,
      );

      for (const error of [claim, get, cancel]) expect(error.issues.map((issue) => issue.path)).toEqual([field]);
      expect(fixture.counter.total()).toBe(0);
    },
  );

  it.each(badPayloads)(
    'a payload with %s never reaches the store: InvalidInputError at %s',
    async (_l, payload, path) => {
      const identity = newIdentity();
      fixture.counter.reset();

      const error = await expectRejection(
        (async () => fixture.store.enqueue(newWorkItem(identity, { payloadHash: payloadHash(payload) })))(),
        InvalidInputError,
      );

      expect(error.issues[0]?.path).toBe(path);
      expect(fixture.counter.total()).toBe(0);
      await expectAbsent(fixture.store, identity);
    },
  );

  it.each<[string, Partial<NewWorkItem>, string]>([
    ['a job type with a space', { jobType: 'send mail' }, 'jobType'],
    ['a hash that is not SHA-256 hex', { payloadHash: 'not-a-hash' }, 'payloadHash'],
    ['zero max attempts', { maxAttempts: 0 }, 'maxAttempts'],
    ['both payloadRef and payloadInline', { payloadInline: true }, 'payloadRef'],
  ])('enqueue with %s: InvalidInputError naming %s, item absent', async (_l, change, field) => {
    const identity = newIdentity();
    fixture.counter.reset();

    const error = await expectRejection(fixture.store.enqueue(newWorkItem(identity, change)), InvalidInputError);

    expect(error.issues.map((issue) => issue.path)).toContain(field);
    expect(fixture.counter.total()).toBe(0);
    await expectAbsent(fixture.store, identity);
  });

  it.each<[string, { owner: string; leaseMs: number }, string]>([
    ['a negative lease', { owner: 'w', leaseMs: -5 }, 'leaseMs'],
    ['a zero lease', { owner: 'w', leaseMs: 0 }, 'leaseMs'],
    ['a NaN lease', { owner: 'w', leaseMs: Number.NaN }, 'leaseMs'],
    ['an infinite lease', { owner: 'w', leaseMs: Number.POSITIVE_INFINITY }, 'leaseMs'],
    ['an empty owner', { owner: '', leaseMs: 1_000 }, 'owner'],
  ])('enqueue and claim with %s: InvalidInputError naming %s, nothing sent', async (_l, lease, field) => {
    const identity = newIdentity();
    fixture.counter.reset();

    const enqueue = await expectRejection(fixture.store.enqueue(newWorkItem(identity), lease), InvalidInputError);
    const claim = await expectRejection(fixture.store.claim(identity, lease), InvalidInputError);

    expect(enqueue.issues.map((issue) => issue.path)).toEqual([field]);
    expect(claim.issues.map((issue) => issue.path)).toEqual([field]);
    expect(fixture.counter.total()).toBe(0);
  });

  it('heartbeat with a non-positive lease and recordStep with an empty name are rejected, nothing sent', async () => {
    const identity = newIdentity();
    const claim = expectCreatedClaim(
      await fixture.store.enqueue(newWorkItem(identity), { owner: 'w', leaseMs: 60_000 }),
    );
    const before = await readRawItem(fixture.client, tables.jobsTable, identity);
    fixture.counter.reset();

    await expectRejection(fixture.store.heartbeat(claim, 0), InvalidInputError);
    await expectRejection(fixture.store.recordStep(claim, '', {}), InvalidInputError);

    expect(fixture.counter.total()).toBe(0);
    expect(await readRawItem(fixture.client, tables.jobsTable, identity)).toEqual(before);
  });

  it('records a step whose name contains a dot as one step', async () => {
    const identity = newIdentity();
    const claim = expectCreatedClaim(
      await fixture.store.enqueue(newWorkItem(identity), { owner: 'w', leaseMs: 60_000 }),
    );

    await fixture.store.recordStep(claim, 'charge.card', { chargeId: 'ch_1' });
    await fixture.store.recordStep(claim, 'notify:customer', null);

    const item = await expectState(fixture.store, identity, WorkState.claimed);
    expect(Object.keys(item.steps).sort()).toEqual(['charge.card', 'notify:customer']);
    expect(item.steps['charge.card']).toMatchObject({ fence: 1, result: { chargeId: 'ch_1' } });
  });
});
