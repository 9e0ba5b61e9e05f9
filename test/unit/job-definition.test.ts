import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { isLeasefenceError, JobDefinitionError } from '../../lib/errors.js';
import {
  defineJob,
  type JobDefinitionInput,
  JobRegistry,
  missingControl,
  retryDelayMs,
} from '../../lib/job-definition.js';

const payload = z.object({ amount: z.number() });
const run = async () => ({ outcomeCode: 'done' });
const reconcile = async () => ({ status: 'not_done' as const });

function input(overrides: Partial<JobDefinitionInput<{ amount: number }>>): JobDefinitionInput<{ amount: number }> {
  return { type: 'refund', version: 1, payload, target: 'B', run, ...overrides };
}

/** The JobDefinitionError a definition is refused with (fails the test when it is accepted). */
function refusal(definition: JobDefinitionInput<{ amount: number }>): JobDefinitionError {
  try {
    defineJob(definition);
  } catch (error) {
    if (isLeasefenceError(error, JobDefinitionError)) return error;
    throw error;
  }
  throw new Error('definition was accepted');
}

describe('defineJob refuses a target class whose controls are missing', () => {
  it('class C without reconcile: the message names the missing reconcile step', () => {
    // act
    const error = refusal(input({ target: 'C' }));
    // assert
    expect(error.code).toBe('job.definition');
    expect(error.message).toContain('class C');
    expect(error.message).toContain('reconcile()');
    expect(error.message).toContain('refund');
  });

  it('class D with more than one attempt: the message names the attempt limit', () => {
    const error = refusal(input({ target: 'D', maxAttempts: 2 }));
    expect(error.message).toContain('class D');
    expect(error.message).toContain('2 attempts');
    expect(error.message).toContain('exactly one attempt');
  });

  it('a definition without run() is refused naming run', () => {
    const error = refusal(input({ run: undefined as unknown as JobDefinitionInput<{ amount: number }>['run'] }));
    expect(error.message).toContain('run(context) is required');
  });

  it.each([
    ['a type with a space', { type: 'bad type' }, 'type'],
    ['version 0', { version: 0 }, 'version'],
    ['a lease under one second', { leaseMs: 10 }, 'leaseMs'],
    ['zero attempts', { maxAttempts: 0 }, 'maxAttempts'],
  ])('refuses %s naming the field', (_label, overrides, field) => {
    expect(refusal(input(overrides)).message).toContain(field);
  });

  it('a payload that is not a zod schema is refused', () => {
    const error = refusal(input({ payload: {} as unknown as z.ZodType<{ amount: number }> }));
    expect(error.message).toContain('payload must be a zod schema');
  });
});

describe('defineJob accepts complete definitions', () => {
  it('class C with reconcile, class D with its default single attempt, classes A and B with three', () => {
    // act
    const classC = defineJob(input({ target: 'C', reconcile }));
    const classD = defineJob(input({ target: 'D' }));
    const classA = defineJob(input({ target: 'A' }));
    // assert
    expect(classC.reconcile).toBe(reconcile);
    expect(classD.maxAttempts).toBe(1);
    expect(classA.maxAttempts).toBe(3);
    expect(Object.isFrozen(classA)).toBe(true);
  });

  it('missingControl reports nothing when every control holds', () => {
    expect(missingControl({ type: 'x', target: 'C', maxAttempts: 5, reconcile, run })).toBeUndefined();
    expect(missingControl({ type: 'x', target: 'D', maxAttempts: 1, run })).toBeUndefined();
  });
});

describe('job registry and retry delay', () => {
  it('refuses a job type defined twice', () => {
    const definition = defineJob(input({}));
    const registry = new JobRegistry([definition]);
    expect(() => registry.register(definition)).toThrow(/defined twice/);
    expect(registry.get('refund')).toBe(definition);
  });

  it('backs off with full jitter: uniform below an exponential ceiling capped at the maximum', () => {
    const definition = defineJob(input({ retry: { baseDelayMs: 100, maxDelayMs: 250 } }));
    const top = () => 0.999_999;
    expect([1, 2, 3, 4].map((attempt) => retryDelayMs(definition, attempt, top))).toEqual([99, 199, 249, 249]);
    expect([1, 2, 3, 4].map((attempt) => retryDelayMs(definition, attempt, () => 0))).toEqual([0, 0, 0, 0]);
    expect(retryDelayMs(definition, 2, () => 0.5)).toBe(100);
  });

  it('spreads the delays of jobs that failed together over the whole window', () => {
    const definition = defineJob(input({ retry: { baseDelayMs: 1_000, maxDelayMs: 60_000 } }));
    const delays = Array.from({ length: 200 }, () => retryDelayMs(definition, 3));
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...delays)).toBeLessThan(4_000);
    expect(new Set(delays).size).toBeGreaterThan(100);
  });
});
