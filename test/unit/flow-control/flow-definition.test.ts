import { describe, expect, it, vi } from 'vitest';
import * as z from 'zod/mini';
import { isLeasefenceError, JobDefinitionError } from '../../../lib/errors.js';
import { defineJob, type JobFlowInput } from '../../../lib/job-definition.js';

const base = {
  type: 'metered',
  version: 1,
  target: 'B' as const,
  payload: z.object({ account: z.string() }),
  run: async () => ({ outcomeCode: 'ok' }),
};
const stripe = { provider: 'stripe', limit: 50, intervalMs: 1_000 };

function define(flow: unknown, target: 'B' | 'C' | 'D' = 'B') {
  return defineJob({
    ...base,
    target,
    ...(target === 'C' ? { reconcile: async () => ({ status: 'not_done' as const }) } : {}),
    flow: flow as JobFlowInput<{ account: string }>,
  });
}

describe('flow.rateLimit and flow.priority on a job definition: validated once, at definition time', () => {
  it('fills the defaults: burst 1, shared scope, taken before the run; one declaration or several', () => {
    expect(define({ rateLimit: stripe }).flow?.rateLimit).toEqual([
      { ...stripe, burst: 1, scope: 'shared', take: 'before-run' },
    ]);
    const two = define({
      rateLimit: [stripe, { provider: 'mail', limit: 5, intervalMs: 60_000, scope: 'tenant', take: 'in-job' }],
      priority: 'bulk',
    });
    expect(two.flow?.rateLimit?.map((limit) => limit.provider)).toEqual(['stripe', 'mail']);
    expect(two.flow?.priority).toBe('bulk');
    expect(define(undefined).flow).toBeUndefined();
  });

  it.each([
    ['a limit of 0', { rateLimit: { ...stripe, limit: 0 } }, /limit/],
    ['a fractional interval', { rateLimit: { ...stripe, intervalMs: 1.5 } }, /intervalMs/],
    ['a provider name with a space', { rateLimit: { ...stripe, provider: 'my api' } }, /provider/],
    ["scope 'key' without key()", { rateLimit: { ...stripe, scope: 'key' } }, /key/],
    ["key() without scope 'key'", { rateLimit: { ...stripe, key: () => 'k' } }, /key/],
    ["acrossTenants without scope 'key'", { rateLimit: { ...stripe, acrossTenants: true } }, /acrossTenants/],
    ['a provider twice', { rateLimit: [stripe, stripe] }, /declared twice/],
    ['an unknown take', { rateLimit: { ...stripe, take: 'later' } }, /take/],
    ['an unknown priority', { priority: 'critical' }, /priority/],
    ['a flow that is not an object', 'fast', /flow must be an object/],
  ])('refuses %s with a JobDefinitionError naming the field', (_case, flow, field) => {
    let thrown: unknown;
    try {
      define(flow);
    } catch (error) {
      thrown = error;
    }
    expect(isLeasefenceError(thrown, JobDefinitionError)).toBe(true);
    expect((thrown as Error).message).toMatch(field);
  });

  it('refuses a class D job whose tokens are taken in the job: a budget wait after its claim could never run again', () => {
    expect(() => define({ rateLimit: { ...stripe, take: 'in-job' } }, 'D')).toThrow(JobDefinitionError);
    expect(define({ rateLimit: stripe }, 'D').flow?.rateLimit).toHaveLength(1);
    expect(define({ rateLimit: { ...stripe, take: 'in-job' } }, 'C').flow?.rateLimit).toHaveLength(1);
  });
});

describe('a worker bundled without flow control (the construct without flowControl)', () => {
  it('refuses, when the job type is defined, a rate limit it could not take from; a priority alone is fine', async () => {
    vi.resetModules();
    vi.stubEnv('LEASEFENCE_FLOW_CONTROL', 'omitted');
    try {
      const fresh = await import('../../../lib/job-definition.js');
      const limited = () => fresh.defineJob({ ...base, flow: { rateLimit: stripe } });
      let thrown: unknown;
      try {
        limited();
      } catch (error) {
        thrown = error;
      }
      expect(isLeasefenceError(thrown, JobDefinitionError)).toBe(true);
      expect((thrown as Error).message).toMatch(/flowControl/);
      expect(fresh.defineJob({ ...base, flow: { priority: 'bulk' } }).flow?.priority).toBe('bulk');
    } finally {
      vi.unstubAllEnvs();
      vi.resetModules();
    }
  });

  it('refuses, when the job type is defined, concurrency limits it could not hold (their schemas are defined out)', async () => {
    vi.resetModules();
    vi.stubEnv('LEASEFENCE_FLOW_CONTROL', 'omitted');
    try {
      const fresh = await import('../../../lib/job-definition.js');
      let thrown: unknown;
      try {
        fresh.defineJob({ ...base, flow: { concurrency: { perTenant: 1 } } });
      } catch (error) {
        thrown = error;
      }
      expect(isLeasefenceError(thrown, JobDefinitionError)).toBe(true);
      expect((thrown as Error).message).toMatch(/flow\.concurrency: .*flowControl/);
    } finally {
      vi.unstubAllEnvs();
      vi.resetModules();
    }
  });
});
