import { describe, expect, expectTypeOf, it } from 'vitest';
import * as z from 'zod';
import * as zm from 'zod/mini';
import { type AnyJobDefinition, defineJob, type JobDefinition, JobRegistry } from '../../lib/job-definition.js';
import type { SqsWorkerHandlerOptions } from '../../lib/lambda/sqs-worker-handler.js';

/**
 * Type-level: `tsc --noEmit` checks this file. A list of jobs with different payload types must be accepted
 * by the worker handler factory and the registry as written, with no cast; if JobDefinition became
 * invariant in its payload again, this file would stop compiling.
 */

const objectJob = defineJob({
  type: 'object-job',
  version: 1,
  target: 'B',
  payload: z.object({ a: z.string() }),
  run: async (ctx) => ({ outcomeCode: ctx.payload.a }),
});

const numberJob = defineJob({
  type: 'number-job',
  version: 1,
  target: 'C',
  payload: z.number(),
  run: async (ctx) => ({ outcomeCode: 'n', result: ctx.payload + 1 }),
  reconcile: async (ctx) => (ctx.payload > 0 ? { status: 'not_done' } : { status: 'cannot_tell', reason: 'zero' }),
});

// Input and output types differ: the worker parses the message body (input) into the payload (output).
const transformedJob = defineJob({
  type: 'transformed-job',
  version: 1,
  target: 'D',
  payload: z.string().transform((text) => text.length),
  run: async (ctx) => ({ outcomeCode: 'len', result: ctx.payload.toFixed(0) }),
});

const defaultedJob = defineJob({
  type: 'defaulted-job',
  version: 1,
  target: 'A',
  payload: z.strictObject({ sku: z.string(), count: z.number().int().default(1) }),
  run: async (ctx) => {
    await ctx.transactions.runStep('reserve', []);
    return { outcomeCode: `${ctx.payload.sku}:${ctx.payload.count}` };
  },
});

// The same payloads written with zod/mini (the smallest cold start): defineJob takes any zod 4 schema.
const miniObjectJob = defineJob({
  type: 'mini-object-job',
  version: 1,
  target: 'B',
  payload: zm.strictObject({ a: zm.string().check(zm.minLength(1)), n: zm.optional(zm.number()) }),
  run: async (ctx) => ({ outcomeCode: ctx.payload.a, result: ctx.payload.n ?? 0 }),
});

const miniTransformedJob = defineJob({
  type: 'mini-transformed-job',
  version: 1,
  target: 'D',
  payload: zm.pipe(
    zm.string(),
    zm.transform((text) => text.length),
  ),
  run: async (ctx) => ({ outcomeCode: 'len', result: ctx.payload.toFixed(0) }),
});

describe('a payload schema may be zod classic or zod/mini', () => {
  it('infers ctx.payload from a mini schema as from a classic one', () => {
    expectTypeOf(miniObjectJob).toEqualTypeOf<JobDefinition<{ a: string; n?: number | undefined }>>();
    expectTypeOf(miniTransformedJob).toEqualTypeOf<JobDefinition<number>>();
    expectTypeOf(miniTransformedJob).toEqualTypeOf<typeof transformedJob>();
  });

  it('keeps the mini schema, so the worker parses with it', () => {
    expect(z.safeParse(miniObjectJob.payload, { a: 'x' }).success).toBe(true);
    expect(z.safeParse(miniObjectJob.payload, { a: '' }).success).toBe(false);
    expect(z.safeParse(miniTransformedJob.payload, 'four')).toMatchObject({ success: true, data: 4 });
  });
});

describe('JobDefinition<Payload> is covariant in its payload: a list of jobs needs no cast', () => {
  it('each job keeps its own payload type', () => {
    expectTypeOf(objectJob).toEqualTypeOf<JobDefinition<{ a: string }>>();
    expectTypeOf(numberJob).toEqualTypeOf<JobDefinition<number>>();
    expectTypeOf(transformedJob).toEqualTypeOf<JobDefinition<number>>();
  });

  it('differently-typed jobs go to the handler factory, the registry and a typed list without a cast', () => {
    const jobs = [objectJob, numberJob, transformedJob, defaultedJob, miniObjectJob];
    const options: SqsWorkerHandlerOptions = { jobs };
    const registry = new JobRegistry(jobs);
    const list: readonly AnyJobDefinition[] = jobs;
    registry.register(defineJob({ ...objectJob, type: 'another-object-job' }));
    expectTypeOf(jobs).toExtend<SqsWorkerHandlerOptions['jobs']>();
    expectTypeOf<JobDefinition<{ a: string }>>().toExtend<AnyJobDefinition>();
    expect(options.jobs).toHaveLength(5);
    expect(list.map((job) => job.type)).toEqual([
      'object-job',
      'number-job',
      'transformed-job',
      'defaulted-job',
      'mini-object-job',
    ]);
    expect(registry.all().map((job) => job.type)).toContain('another-object-job');
  });
});
