import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { describeIssues } from '../../../lib/internal/issue-paths.js';
import { jobEnvelopeSchema, parseEnvelope } from '../../../lib/messaging/envelope.js';
import { checkPlainEnvelope } from '../../../lib/messaging/envelope-check.js';
import { jobTypeSchema } from '../../../lib/rules.js';

// The one-pass check of an SQS body's envelope must be exactly as strict as the full schema: what it accepts the
// schema accepts with the same result; what it declines goes to the schema (same envelope or same detail).

const HASH = 'a'.repeat(64);
const pick = <T>(good: readonly T[], bad: readonly unknown[]) =>
  fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...good) }, { weight: 1, arbitrary: fc.constantFrom(...bad) });
const payload = pick<unknown>(
  [{ ref: 's3://bucket/key.json' }, { inline: true }],
  [
    { inline: false },
    { body: { a: 1 } },
    { ref: 'r', inline: true },
    {},
    { ref: '' },
    { ref: 'x'.repeat(1025) },
    { ref: 5 },
    null,
    [],
  ],
);
/** Members: each absent (sometimes), valid, or wrong. */
const member = (field: string, arbitrary: fc.Arbitrary<unknown>, absentWeight = 1) =>
  fc.oneof(
    { weight: absentWeight, arbitrary: fc.constant({}) },
    { weight: 12, arbitrary: arbitrary.map((value) => ({ [field]: value })) },
  );
const envelope = fc
  .tuple(
    member('v', pick([1], [2, '1'])),
    member('kind', pick(['job', 'wake'], ['other', 1])),
    member('tenantId', pick(['acme', 't.1-x'], ['', '-x', 'a#b', 'x'.repeat(65), 3])),
    member('operationId', pick(['op-1', 'a:b/c=d+e@f'], ['', '/x', 'x'.repeat(257), null])),
    member('jobType', pick(['refund', 'bench.job'], ['', 'a b', 'x'.repeat(65)])),
    member('jobVersion', pick([1, 1_000_000], [0, 1.5, 1_000_001, '1']), 12),
    member('payloadHash', pick([HASH], ['A'.repeat(64), 'a'.repeat(63), ''])),
    member('payload', payload),
    member('extra', fc.constant(1), 24),
  )
  .map((members) => Object.assign({}, ...members) as Record<string, unknown>);
const bodies = fc.oneof(
  { weight: 12, arbitrary: envelope.map((value) => JSON.stringify(value)) },
  // An own __proto__ member, as JSON.parse makes one.
  { weight: 1, arbitrary: envelope.map((value) => JSON.stringify(value).replace(/^\{/, '{"__proto__":{},')) },
);

describe('the one-pass check of an envelope (exactly as strict as the schema)', () => {
  it('accepts only what the schema accepts, returning exactly what the schema returns', () => {
    let accepted = 0;
    fc.assert(
      fc.property(bodies, (body) => {
        const raw: unknown = JSON.parse(body);
        const checked = checkPlainEnvelope(raw);
        if (checked === undefined) return;
        accepted += 1;
        const full = jobEnvelopeSchema.safeParse(raw);
        expect(full.success).toBe(true);
        expect(checked).toStrictEqual(full.data);
        // The same members in the same order (a re-sent envelope is the same text).
        expect(JSON.stringify(checked)).toBe(JSON.stringify(full.data));
      }),
      { numRuns: 3_000 },
    );
    expect(accepted).toBeGreaterThan(100);
  });

  it('parseEnvelope gives the same envelope, or the same problem and detail, as the schema alone', () => {
    fc.assert(
      fc.property(bodies, (body) => {
        const raw = JSON.parse(body) as { v?: unknown };
        const result = parseEnvelope(body);
        if (raw.v !== 1) return;
        const full = jobEnvelopeSchema.safeParse(raw);
        if (full.success) {
          expect(result).toStrictEqual({
            ok: true,
            envelope: full.data,
            identity: { tenantId: full.data.tenantId, operationId: full.data.operationId },
          });
        } else {
          expect(result).toStrictEqual({
            ok: false,
            problem: 'invalid_envelope',
            detail: describeIssues(jobEnvelopeSchema, full.error.issues),
          });
        }
      }),
      { numRuns: 1_000 },
    );
  });

  it('takes the one pass for a ref and an inline binding, and leaves a carried body to the schema', () => {
    const base = { v: 1, kind: 'job', tenantId: 'acme', operationId: 'op-1', jobType: 'refund', payloadHash: HASH };
    expect(checkPlainEnvelope({ ...base, payload: { ref: 'r' } })).toStrictEqual({ ...base, payload: { ref: 'r' } });
    expect(checkPlainEnvelope({ ...base, payload: { inline: true } })).toStrictEqual({
      ...base,
      payload: { inline: true },
    });
    expect(checkPlainEnvelope({ ...base, payload: { body: { a: 1 } } })).toBeUndefined();
  });

  it('checks a job type with its schema once, however many messages name it', () => {
    const check = vi.spyOn(jobTypeSchema, 'safeParse');
    try {
      for (let index = 0; index < 10; index += 1) {
        const body = { v: 1, kind: 'job', tenantId: 'acme', operationId: `op-${index}`, jobType: 'named-once' };
        expect(parseEnvelope(JSON.stringify({ ...body, payloadHash: HASH, payload: { ref: 'r' } })).ok).toBe(true);
      }
      expect(check).toHaveBeenCalledTimes(1);
    } finally {
      check.mockRestore();
    }
  });
});
