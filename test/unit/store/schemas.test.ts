import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../lib/errors.js';
import { parseIdentity } from '../../../lib/identity.js';
import { boundAsReceived, parseEnvelope } from '../../../lib/messaging/envelope.js';
import { type NewWorkItem, newWorkItem, parseNewWorkItem } from '../../../lib/store/work-items/schemas.js';
import { expectThrown } from '../../support/expectations.js';

const valid = {
  identity: { tenantId: 'acme', operationId: 'refund-1' },
  jobType: 'refund',
  payloadHash: 'f'.repeat(64),
  payloadRef: 's3://bucket/refund-1.json',
  maxAttempts: 3,
};

describe('parseNewWorkItem', () => {
  it('accepts a payloadRef item and an inline item', () => {
    expect(parseNewWorkItem(valid)).toEqual(valid);
    const { payloadRef: _ref, ...withoutRef } = valid;
    expect(parseNewWorkItem({ ...withoutRef, payloadInline: true })).toEqual({ ...withoutRef, payloadInline: true });
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['a bad tenant', { identity: { tenantId: 'a#b', operationId: 'x' } }, 'identity.tenantId'],
    ['a bad operation', { identity: { tenantId: 'a', operationId: '' } }, 'identity.operationId'],
    ['a bad job type', { jobType: 'refund v2' }, 'jobType'],
    ['an uppercase hash', { payloadHash: 'F'.repeat(64) }, 'payloadHash'],
    ['a short hash', { payloadHash: 'f'.repeat(63) }, 'payloadHash'],
    ['an empty payloadRef', { payloadRef: '' }, 'payloadRef'],
    ['an oversize payloadRef', { payloadRef: 'r'.repeat(1025) }, 'payloadRef'],
    ['zero attempts', { maxAttempts: 0 }, 'maxAttempts'],
    ['fractional attempts', { maxAttempts: 1.5 }, 'maxAttempts'],
    ['too many attempts', { maxAttempts: 101 }, 'maxAttempts'],
    ['a negative availableAt', { availableAt: -1 }, 'availableAt'],
    ['both payload forms', { payloadInline: true }, 'payloadRef'],
  ])('rejects %s naming the field', (_label, change, path) => {
    const error = expectThrown(() => parseNewWorkItem({ ...valid, ...change }), InvalidInputError);

    expect(error.issues.map((issue) => issue.path)).toContain(path);
  });

  it('rejects neither payload form', () => {
    const { payloadRef: _ref, ...withoutRef } = valid;

    const error = expectThrown(() => parseNewWorkItem(withoutRef), InvalidInputError);

    expect(error.issues.map((issue) => issue.path)).toEqual(['payloadRef']);
  });

  it('rejects unknown fields such as a payload body', () => {
    const error = expectThrown(() => parseNewWorkItem({ ...valid, payload: { amount: 10 } }), InvalidInputError);

    expect(error.message).toContain('payload');
  });
});

describe('newWorkItem (the one builder from a parsed job to its new work item)', () => {
  // Each field drawn from its valid shape, or from a shape just outside it, so both sides of every rule are hit.
  const nearly = (pattern: RegExp) =>
    fc.oneof(
      { arbitrary: fc.stringMatching(pattern), weight: 9 },
      { arbitrary: fc.string({ maxLength: 80 }), weight: 1 },
    );
  const envelope = fc.record({
    v: fc.constant(1),
    kind: fc.constantFrom('job', 'wake'),
    tenantId: nearly(/^[A-Za-z0-9][A-Za-z0-9._-]{0,70}$/),
    operationId: nearly(/^[A-Za-z0-9][A-Za-z0-9._:/=+@-]{0,260}$/),
    jobType: nearly(/^[A-Za-z0-9][A-Za-z0-9._-]{0,70}$/),
    payloadHash: nearly(/^[0-9a-f]{64}$/),
    payload: fc.oneof(
      fc.record({ ref: fc.oneof(fc.string({ maxLength: 40 }), fc.string({ minLength: 1020, maxLength: 1030 })) }),
      fc.constant({ inline: true }),
      fc.constant({ inline: false }),
    ),
  });
  const maxAttempts = fc.oneof(fc.integer({ min: -2, max: 120 }), fc.double());

  it('from any message the SQS boundary accepts, builds exactly the item the full schema makes of it', () => {
    let accepted = 0;
    fc.assert(
      fc.property(envelope, maxAttempts, fc.option(fc.nat(), { nil: undefined }), (candidate, attempts, due) => {
        const parsed = parseEnvelope(JSON.stringify(candidate));
        fc.pre(parsed.ok);
        if (!parsed.ok) return;
        accepted += 1;
        const fields = {
          identity: { tenantId: candidate.tenantId, operationId: candidate.operationId },
          jobType: candidate.jobType,
          payloadHash: candidate.payloadHash,
          ...('ref' in candidate.payload ? { payloadRef: candidate.payload.ref } : { payloadInline: true }),
          maxAttempts: attempts,
          ...(due !== undefined ? { availableAt: due } : {}),
        };
        let item: NewWorkItem;
        try {
          // These envelopes never carry a body, so each is bound as it was received.
          item = newWorkItem(
            parsed.identity,
            (boundAsReceived(parsed) ?? expect.unreachable()).envelope,
            attempts,
            due,
          );
        } catch (error) {
          // Only the attempt budget (a job definition's, which can be built by hand) is checked here.
          expect(error).toBeInstanceOf(InvalidInputError);
          expect(new Set((error as InvalidInputError).issues.map((issue) => issue.path))).toEqual(
            new Set(['maxAttempts']),
          );
          expect(() => parseNewWorkItem(fields)).toThrow(InvalidInputError);
          return;
        }
        expect(item).toEqual(parseNewWorkItem(fields));
        expect(item.identity).toBe(parsed.identity);
      }),
      { numRuns: 1000 },
    );
    expect(accepted).toBeGreaterThan(100);
  });

  it('refuses an attempt budget outside 1..100 naming maxAttempts, as parseNewWorkItem does', () => {
    const identity = parseIdentity({ tenantId: 'acme', operationId: 'refund-1' });
    const job = { jobType: 'refund', payloadHash: 'f'.repeat(64), payload: { ref: 's3://bucket/refund-1.json' } };
    for (const attempts of [0, 101, 1.5]) {
      const built = expectThrown(() => newWorkItem(identity, job, attempts), InvalidInputError);
      const parsed = expectThrown(() => parseNewWorkItem({ ...valid, maxAttempts: attempts }), InvalidInputError);
      expect(built.issues).toEqual(parsed.issues);
      expect(built.message).toBe(parsed.message);
    }
  });
});
