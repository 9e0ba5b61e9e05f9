import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { ConfigurationError, isLeasefenceError, JobDefinitionError } from '../../../lib/errors.js';
import { INVALID_KEY, limitsOf } from '../../../lib/flow-control/concurrency-limits.js';
import { parseIdentity } from '../../../lib/identity.js';
import { type AnyJobDefinition, defineJob, type JobFlowInput, JobRegistry } from '../../../lib/job-definition.js';
import type { WorkItemStore } from '../../../lib/store/index.js';
import { WorkerRuntime } from '../../../lib/worker/worker-runtime.js';

const payload = z.object({ account: z.string() });
const run = async () => ({ outcomeCode: 'done' });

function define(flow: unknown) {
  return defineJob({
    type: 'limited',
    version: 1,
    payload,
    target: 'B',
    run,
    flow: flow as JobFlowInput<{ account: string }>,
  });
}

/** The JobDefinitionError a flow block is refused with (fails the test when it is accepted). */
function refusal(flow: unknown): JobDefinitionError {
  try {
    define(flow);
  } catch (error) {
    if (isLeasefenceError(error, JobDefinitionError)) return error;
    throw error;
  }
  throw new Error('definition was accepted');
}

describe('flow.concurrency is checked when the job type is defined', () => {
  it('accepts a type, per-tenant and per-key limit and keeps them on the definition', () => {
    const definition = define({
      concurrency: { type: 50, perTenant: 5, perKey: { limit: 1, key: (body: { account: string }) => body.account } },
    });

    expect(definition.flow?.concurrency).toMatchObject({ type: 50, perTenant: 5, perKey: { limit: 1 } });
  });

  it.each([
    [{ concurrency: {} }, 'declare at least one of type, perTenant, perKey'],
    [{ concurrency: { type: 0 } }, 'flow.concurrency: type'],
    [{ concurrency: { perTenant: 1.5 } }, 'flow.concurrency: perTenant'],
    [{ concurrency: { type: 1_001 } }, 'flow.concurrency: type'],
    [{ concurrency: { perKey: { limit: 1 } } }, 'flow.concurrency: perKey.key'],
    [{ concurrency: { perKey: { limit: 1, key: 'account' } } }, 'flow.concurrency: perKey.key'],
    [{ concurrency: { type: 1, typo: 2 } }, 'typo'],
    [{ concurrency: { type: 1, recheckMs: 901_000 } }, 'flow.concurrency: recheckMs'],
    ['one', 'flow must be an object'],
  ])('refuses %j, naming %s', (flow, named) => {
    const error = refusal(flow);

    expect(error.code).toBe('job.definition');
    expect(error.message).toContain(named);
  });
});

describe('limitsOf: the slots a job must hold', () => {
  const identity = parseIdentity({ tenantId: 'acme', operationId: 'op-1' });

  it('lists type, tenant and key limits in that fixed order, the key scoped to the tenant', () => {
    const limits = limitsOf(
      { type: 9, perTenant: 3, perKey: { limit: 1, key: (body: { account: string }) => body.account } },
      identity,
      { account: 'a-7' },
    );

    expect(limits).toEqual([
      { scope: { kind: 'type' }, limit: 9 },
      { scope: { kind: 'tenant', tenantId: 'acme' }, limit: 3 },
      { scope: { kind: 'key', tenantId: 'acme', key: 'a-7' }, limit: 1 },
    ]);
  });

  it.each([
    [
      'throws',
      () => {
        throw new Error('no');
      },
    ],
    ['returns an empty key', () => ''],
    ['returns a number', () => 7 as unknown as string],
    ['returns a key over 256 chars', () => 'k'.repeat(257)],
  ])('a per-key function that %s is an invalid key (the job is quarantined, never run)', (_, key) => {
    expect(limitsOf({ perKey: { limit: 1, key } }, identity, {})).toBe(INVALID_KEY);
  });
});

describe('a worker bundled without flow control (the construct without flowControl)', () => {
  const limited = define({ concurrency: { perTenant: 1 } });
  const plain = defineJob({ type: 'plain', version: 1, payload, target: 'B', run });
  const runtime = (jobs: AnyJobDefinition[]) =>
    new WorkerRuntime({
      store: {} as WorkItemStore,
      client: {} as DynamoDBDocumentClient,
      registry: new JobRegistry(jobs),
    });

  afterEach(() => {
    delete process.env.LEASEFENCE_FLOW_CONTROL;
  });

  it('refuses to start with a job type that declares limits, naming it and the prop (never runs it unlimited)', () => {
    process.env.LEASEFENCE_FLOW_CONTROL = 'omitted';

    expect(() => runtime([plain, limited as AnyJobDefinition])).toThrow(ConfigurationError);
    expect(() => runtime([limited as AnyJobDefinition])).toThrow(/job type limited: .*flowControl prop/);
  });

  it('starts with job types that declare none', () => {
    process.env.LEASEFENCE_FLOW_CONTROL = 'omitted';

    expect(runtime([plain]).workerId).toMatch(/^worker-/);
  });
});
