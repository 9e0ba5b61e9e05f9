import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { SuccessorRefusedError } from '../../../lib/errors.js';
import { payloadHash } from '../../../lib/hashing.js';
import { defineJob, JobRegistry } from '../../../lib/job-definition.js';
import { MAX_SUCCESSOR_PAYLOAD_BYTES } from '../../../lib/rules.js';
import { MAX_SUCCESSORS } from '../../../lib/store/successors/successor-requests.js';
import { SuccessorBuffer } from '../../../lib/worker/successors.js';
import { claimFixture } from '../../support/claim-fixture.js';
import { expectThrown } from '../../support/expectations.js';

const notify = defineJob({
  type: 'notify',
  version: 1,
  target: 'D',
  payload: z.strictObject({ to: z.string() }),
  run: async () => ({ outcomeCode: 'sent' }),
});

function buffer(options: { payloadsAvailable?: boolean } = {}): SuccessorBuffer {
  return new SuccessorBuffer({
    claim: claimFixture({ tenantId: 'acme', operationId: 'order-7' }),
    registry: new JobRegistry([notify]),
    payloadsAvailable: options.payloadsAvailable ?? true,
  });
}

describe('SuccessorBuffer (ctx.enqueue)', () => {
  it('derives the identity from the parent and the name (default: the job type), in the parent tenant', () => {
    const successors = buffer();

    expect(successors.add('notify', { to: 'a' })).toEqual({ tenantId: 'acme', operationId: 'order-7/notify' });
    expect(successors.add('notify', { to: 'b' }, { name: 'sms' })).toEqual({
      tenantId: 'acme',
      operationId: 'order-7/sms',
    });
    expect(successors.add('notify', { to: 'c' }, { operationId: 'explicit-1' })).toEqual({
      tenantId: 'acme',
      operationId: 'explicit-1',
    });
    const [first] = successors.list();
    // The attempt budget comes from the successor's definition (class D: one attempt), the hash from the body.
    expect(first?.item).toMatchObject({
      jobType: 'notify',
      maxAttempts: 1,
      payloadHash: payloadHash({ to: 'a' }),
      payloadInline: true,
      parentOperationId: 'order-7',
    });
  });

  it('asking twice for the same job is one successor; the same identity for another payload is refused', () => {
    const successors = buffer();
    successors.add('notify', { to: 'a' }, { name: 'email' });
    successors.add('notify', { to: 'a' }, { name: 'email' });
    expect(successors.size).toBe(1);

    expectThrown(() => successors.add('notify', { to: 'b' }, { name: 'email' }), SuccessorRefusedError);
    expect(successors.size).toBe(1);
  });

  it.each([
    ['an unregistered job type', (b: SuccessorBuffer) => b.add('nope', { to: 'a' })],
    ['a payload failing its schema', (b: SuccessorBuffer) => b.add('notify', { to: 7 })],
    ['a name with a slash', (b: SuccessorBuffer) => b.add('notify', { to: 'a' }, { name: 'a/b' })],
    [
      'both a name and an operationId',
      (b: SuccessorBuffer) => b.add('notify', { to: 'a' }, { name: 'a', operationId: 'b' }),
    ],
    ["the parent's own identity", (b: SuccessorBuffer) => b.add('notify', { to: 'a' }, { operationId: 'order-7' })],
    [
      'a payload over the size limit',
      (b: SuccessorBuffer) => b.add('notify', { to: 'x'.repeat(MAX_SUCCESSOR_PAYLOAD_BYTES) }),
    ],
  ])('refuses %s, keeping nothing', (_what, ask) => {
    const successors = buffer();

    const error = expectThrown(() => ask(successors), SuccessorRefusedError);

    expect(error.code).toBe('successor.refused');
    expect(successors.size).toBe(0);
  });

  it('refuses every successor when the worker has no payloads table', () => {
    expectThrown(() => buffer({ payloadsAvailable: false }).add('notify', { to: 'a' }), SuccessorRefusedError);
  });

  it(`refuses successor number ${MAX_SUCCESSORS + 1} (one transaction holds the parent and ${MAX_SUCCESSORS} successors)`, () => {
    const successors = buffer();
    for (let index = 0; index < MAX_SUCCESSORS; index += 1)
      successors.add('notify', { to: `${index}` }, { name: `n${index}` });

    expectThrown(() => successors.add('notify', { to: 'one more' }, { name: 'last' }), SuccessorRefusedError);
    expect(successors.size).toBe(MAX_SUCCESSORS);
  });
});
