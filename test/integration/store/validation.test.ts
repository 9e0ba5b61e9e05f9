import { SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cancelItem } from '../../../lib/admin/cancel.js';
import type { AdminDeps } from '../../../lib/admin/deps.js';
import { showItem } from '../../../lib/admin/show.js';
import { InvalidInputError } from '../../../lib/errors.js';
import { parseStepName } from '../../../lib/fenced/steps.js';
import { MAX_PAYLOAD_BYTES, payloadHash } from '../../../lib/hashing.js';
import type { JobIdentity } from '../../../lib/identity.js';
import { sendJob } from '../../../lib/messaging/producer.js';
import { WorkState } from '../../../lib/states.js';
import { type NewWorkItemInput, parseLease, parseLeaseDuration } from '../../../lib/store/work-items/schemas.js';
import { createTestTables, type TestTables } from '../../support/engine.js';
import {
  expectAbsent,
  expectCreatedClaim,
  expectRejection,
  expectState,
  expectThrown,
} from '../../support/expectations.js';
import { newIdentity, newWorkItem } from '../../support/factories.js';
import { type StoreFixture, storeFixture } from '../../support/store.js';

// The store takes parsed types only (ValidIdentity, NewWorkItem, LeaseRequest, …): bad input is refused where it
// enters (an admin operation, the producer, the parse functions a hand-built call goes through), before any request.

/** An SQS client on a closed port: a request that got past validation would fail with a network error instead. */
const unreachableSqs = new SQSClient({
  region: 'us-east-1',
  endpoint: 'http://127.0.0.1:9',
  credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  maxAttempts: 1,
});

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
    'a hand-built work item with %s: parseNewWorkItem names identity.%s, nothing can be sent',
    (_l, identity, field) => {
      const error = expectThrown(() => newWorkItem(identity), InvalidInputError);

      expect(error.issues.map((issue) => issue.path)).toEqual([`identity.${field}`]);
    },
  );

  it.each(badIdentities)(
    'showItem, cancelItem and sendJob with %s: InvalidInputError naming %s, nothing sent',
    async (_l, identity, field) => {
      const deps = {
        store: fixture.store,
        sqs: unreachableSqs,
        queueUrl: 'http://127.0.0.1:9/000000000000/jobs',
        payloadsTable: tables.payloadsTable,
      } satisfies AdminDeps;
      fixture.counter.reset();

      const show = await expectRejection(showItem(deps, identity), InvalidInputError);
      const cancel = await expectRejection(cancelItem(deps, identity, { actor: 'a', reason: 'r' }), InvalidInputError);
      const send = await expectRejection(
        sendJob(deps, { ...identity, jobType: 'demo', payloadRef: 'ref', payloadHash: 'a'.repeat(64) }),
        InvalidInputError,
      );

      for (const error of [show, cancel, send]) expect(error.issues.map((issue) => issue.path)).toEqual([field]);
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

  it.each<[string, Partial<NewWorkItemInput>, string]>([
    ['a job type with a space', { jobType: 'send mail' }, 'jobType'],
    ['a hash that is not SHA-256 hex', { payloadHash: 'not-a-hash' }, 'payloadHash'],
    ['zero max attempts', { maxAttempts: 0 }, 'maxAttempts'],
    ['both payloadRef and payloadInline', { payloadInline: true }, 'payloadRef'],
  ])('enqueue with %s: InvalidInputError naming %s, item absent', async (_l, change, field) => {
    const identity = newIdentity();
    fixture.counter.reset();

    const error = await expectRejection(
      (async () => fixture.store.enqueue(newWorkItem(identity, change)))(),
      InvalidInputError,
    );

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
  ])('a lease with %s: parseLease names %s, so no enqueue or claim can carry it', (_l, lease, field) => {
    const error = expectThrown(() => parseLease(lease), InvalidInputError);

    expect(error.issues.map((issue) => issue.path)).toEqual([field]);
  });

  it('a non-positive lease duration and an empty step name are refused before a heartbeat or a step record', () => {
    expect(() => parseLeaseDuration(0)).toThrow(InvalidInputError);
    expect(() => parseLeaseDuration(-1)).toThrow(InvalidInputError);
    expect(() => parseStepName('')).toThrow(InvalidInputError);
  });

  it('records a step whose name contains a dot as one step', async () => {
    const identity = newIdentity();
    const claim = expectCreatedClaim(
      await fixture.store.enqueue(newWorkItem(identity), parseLease({ owner: 'w', leaseMs: 60_000 })),
    );

    await fixture.store.recordStep(claim, parseStepName('charge.card'), { chargeId: 'ch_1' });
    await fixture.store.recordStep(claim, parseStepName('notify:customer'), null);

    const item = await expectState(fixture.store, identity, WorkState.claimed);
    expect(Object.keys(item.steps).sort()).toEqual(['charge.card', 'notify:customer']);
    expect(item.steps['charge.card']).toMatchObject({ fence: 1, result: { chargeId: 'ch_1' } });
  });
});
