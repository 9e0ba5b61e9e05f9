import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { approvalGateFor, approvalGateUnseen, principalOf, requiresApproval } from '../../lib/approval-policy.js';
import { JobDefinitionError } from '../../lib/errors.js';
import { defineJob } from '../../lib/job-definition.js';

const base = {
  type: 'refund',
  version: 1,
  target: 'B' as const,
  payload: z.strictObject({ amount: z.number() }),
  run: async () => ({ outcomeCode: 'ok' }),
};

describe('approval policy at definition time', () => {
  it('accepts always or a predicate, with an expiry and who approves', () => {
    expect(defineJob({ ...base, approval: { required: true, expiresAfterMs: 60_000 } }).approval).toEqual({
      required: true,
      expiresAfterMs: 60_000,
    });
    const gated = defineJob({
      ...base,
      approval: { when: (payload) => payload.amount > 10, approvers: 'not-producer', expiresAfterMs: 60_000 },
    });
    expect(gated.approval?.approvers).toBe('not-producer');
  });

  it.each([
    ['no expiry', { required: true }, 'expiresAfterMs'],
    ['an expiry under a second', { required: true, expiresAfterMs: 10 }, 'expiresAfterMs'],
    ['an expiry over 90 days', { required: true, expiresAfterMs: 91 * 86_400_000 }, 'expiresAfterMs'],
    ['required false', { required: false, expiresAfterMs: 60_000 }, 'required'],
    ['a predicate that is no function', { when: 'amount > 10', expiresAfterMs: 60_000 }, 'when'],
    ['an unknown approver rule', { required: true, approvers: 'managers', expiresAfterMs: 60_000 }, 'approvers'],
    ['both forms at once', { required: true, when: () => true, expiresAfterMs: 60_000 }, 'exactly one'],
    ['an unknown field', { required: true, expiresAfterMs: 60_000, approver: 'x' }, 'approver'],
  ])('refuses %s with a JobDefinitionError naming the field', (_label, approval, field) => {
    const define = () => defineJob({ ...base, approval: approval as never });
    expect(define).toThrow(JobDefinitionError);
    expect(define).toThrow(field);
  });
});

describe('which payloads are gated', () => {
  it('a predicate gates only where it returns true; one that throws gates (the safe direction)', () => {
    const policy = { when: (payload: { amount: number }) => payload.amount > 10, expiresAfterMs: 1_000 };
    expect(requiresApproval(policy, { amount: 5 })).toBe(false);
    expect(requiresApproval(policy, { amount: 50 })).toBe(true);
    const throwing = {
      when: () => {
        throw new Error('bug');
      },
      expiresAfterMs: 1_000,
    };
    expect(requiresApproval(throwing, { amount: 5 })).toBe(true);
    expect(requiresApproval(undefined, { amount: 5 })).toBe(false);
  });

  it('the gate records the expiry, the approver rule and the producer principal without its session name', () => {
    const policy = { required: true as const, approvers: 'not-producer' as const, expiresAfterMs: 5_000 };
    expect(approvalGateFor(policy, {}, 1_000, 'AROAPRODUCER00000000:lambda-session')).toEqual({
      expiresAt: 6_000,
      approvers: 'not-producer',
      producerId: 'AROAPRODUCER00000000',
    });
    expect(approvalGateFor({ required: true, expiresAfterMs: 5_000 }, {}, 0)).toEqual({
      expiresAt: 5_000,
      approvers: 'anyone',
    });
    expect(approvalGateUnseen({ when: () => false, expiresAfterMs: 5_000 }, 0)).toMatchObject({ expiresAt: 5_000 });
    expect(approvalGateUnseen(undefined, 0)).toBeUndefined();
    expect(principalOf('AIDAUSER000000000000')).toBe('AIDAUSER000000000000');
  });
});
