import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { parseIdentity } from '../../../lib/identity.js';
import { defineJob } from '../../../lib/job-definition.js';
import { createWorkerHarness, type WorkerHarness } from '../../support/worker-harness.js';

const sideEffects: string[] = [];
const greet = defineJob({
  type: 'greet',
  version: 1,
  target: 'B',
  payload: z.strictObject({ name: z.string() }),
  run: async (ctx) => {
    sideEffects.push(`${ctx.identity.tenantId}/${ctx.payload.name}`);
    return { outcomeCode: 'greeted', result: { length: ctx.payload.name.length } };
  },
});

describe('full path: producer ▶ SQS ▶ worker handler ▶ succeeded', () => {
  let harness: WorkerHarness;
  beforeAll(async () => {
    harness = await createWorkerHarness('fullpath', [greet]);
  });
  afterAll(async () => {
    await harness.close();
  });

  it('runs an inline-payload job once and deletes the message only after the row committed', async () => {
    const sent = await harness.send({
      tenantId: 'acme',
      operationId: 'greet-1',
      jobType: 'greet',
      payload: { name: 'Ada' },
    });
    expect(sent.payloadStored).toBe('stored');
    const worker = harness.worker();

    const round = await harness.poll(worker);

    expect(round).toEqual({ received: 1, failed: 0, deleted: 1 });
    const item = await harness.store.get(parseIdentity({ tenantId: 'acme', operationId: 'greet-1' }));
    expect(item).toMatchObject({
      state: 'succeeded',
      fence: 1,
      attempts: 1,
      outcomeCode: 'greeted',
      result: { length: 3 },
    });
    expect(item).not.toHaveProperty('payload');
    expect(JSON.stringify(item)).not.toContain('Ada');
    expect(sideEffects).toEqual(['acme/Ada']);
    expect(await harness.queueDepth()).toEqual({ visible: 0, inFlight: 0 });
    expect(worker.telemetry.counts).toMatchObject({ Claims: 1, Succeeded: 1 });
  });

  it('keeps the message when the row cannot be committed (engine unreachable) and succeeds on redelivery', async () => {
    sideEffects.length = 0;
    await harness.send({ tenantId: 'acme', operationId: 'greet-2', jobType: 'greet', payload: { name: 'Grace' } });
    const worker = harness.worker();
    // Make the engine unreachable for one round: the create-claimed PutItem fails, nothing commits.
    worker.client.middlewareStack.add(
      () => async () => {
        throw Object.assign(new Error('engine unreachable (test)'), { name: 'ServiceUnavailable', $fault: 'server' });
      },
      { step: 'finalizeRequest', priority: 'low', name: 'break-engine' },
    );

    const failedRound = await harness.poll(worker, { visibilityTimeoutSeconds: 1 });

    expect(failedRound).toEqual({ received: 1, failed: 1, deleted: 0 });
    expect(await harness.store.get(parseIdentity({ tenantId: 'acme', operationId: 'greet-2' }))).toBeUndefined();
    expect(sideEffects).toEqual([]);
    worker.client.middlewareStack.remove('break-engine');

    const retried = await harness.poll(worker, { waitTimeSeconds: 5 });

    expect(retried).toEqual({ received: 1, failed: 0, deleted: 1 });
    expect(await harness.store.get(parseIdentity({ tenantId: 'acme', operationId: 'greet-2' }))).toMatchObject({
      state: 'succeeded',
    });
    expect(sideEffects).toEqual(['acme/Grace']);
  });

  it('acknowledges a replay of a finished job without running it again', async () => {
    sideEffects.length = 0;
    await harness.send({ tenantId: 'acme', operationId: 'greet-1', jobType: 'greet', payload: { name: 'Ada' } });
    const worker = harness.worker();

    const round = await harness.poll(worker);

    expect(round).toEqual({ received: 1, failed: 0, deleted: 1 });
    expect(sideEffects).toEqual([]);
    expect(await harness.store.get(parseIdentity({ tenantId: 'acme', operationId: 'greet-1' }))).toMatchObject({
      state: 'succeeded',
      fence: 1,
    });
  });
});
