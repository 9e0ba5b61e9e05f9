import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { RetryableJobError } from '../../../lib/errors.js';
import { parseIdentity } from '../../../lib/identity.js';
import { defineJob } from '../../../lib/job-definition.js';
import { createWorkerHarness, type WorkerHarness } from '../../support/worker-harness.js';

let runs = 0;
const BASE_DELAY_MS = 60_000;

const invoice = defineJob({
  type: 'invoice',
  version: 2,
  target: 'B',
  maxAttempts: 3,
  retry: { baseDelayMs: BASE_DELAY_MS, maxDelayMs: 600_000 },
  payload: z.strictObject({ fail: z.boolean() }),
  run: async (ctx) => {
    runs += 1;
    if (ctx.payload.fail) throw new RetryableJobError('provider_down', 'provider answered 503');
    return { outcomeCode: 'done' };
  },
});

describe('job versions and retry backoff', () => {
  let harness: WorkerHarness;
  beforeAll(async () => {
    harness = await createWorkerHarness('version', [invoice]);
  });
  afterAll(async () => {
    await harness.close();
  });

  it('a message for a version the worker does not run is quarantined with job_version_unsupported; nothing runs', async () => {
    runs = 0;
    await harness.send({
      tenantId: 'acme',
      operationId: 'inv-v1',
      jobType: 'invoice',
      jobVersion: 1,
      payload: { fail: false },
    });
    await harness.send({
      tenantId: 'acme',
      operationId: 'inv-v2',
      jobType: 'invoice',
      jobVersion: 2,
      payload: { fail: false },
    });
    await harness.send({ tenantId: 'acme', operationId: 'inv-none', jobType: 'invoice', payload: { fail: false } });
    const worker = harness.worker();

    await harness.poll(worker);
    await harness.poll(worker);

    expect(runs).toBe(2);
    expect(await harness.store.get(parseIdentity({ tenantId: 'acme', operationId: 'inv-v1' }))).toBeUndefined();
    expect(await harness.store.get(parseIdentity({ tenantId: 'acme', operationId: 'inv-v2' }))).toMatchObject({
      state: 'succeeded',
    });
    expect(await harness.store.get(parseIdentity({ tenantId: 'acme', operationId: 'inv-none' }))).toMatchObject({
      state: 'succeeded',
    });
    const rows = (await harness.client.send(new ScanCommand({ TableName: harness.tables.jobsTable }))).Items ?? [];
    expect(rows.filter((row) => row.kind === 'quarantine')).toEqual([
      expect.objectContaining({ reason: 'job_version_unsupported', tenantId: 'acme' }),
    ]);
  });

  it('a retryable failure is scheduled with full jitter: due somewhere below the backoff ceiling, not at it', async () => {
    const identities = Array.from({ length: 6 }, (_, index) =>
      parseIdentity({ tenantId: 'acme', operationId: `inv-retry-${index}` }),
    );
    for (const identity of identities) await harness.send({ ...identity, jobType: 'invoice', payload: { fail: true } });
    const worker = harness.worker();
    const now = harness.clock.now();

    for (let round = 0; round < 3; round += 1) await harness.poll(worker);

    const items = await Promise.all(identities.map((identity) => harness.store.get(identity)));
    const delays = items.map((item) => (item?.availableAt ?? -1) - now);
    for (const item of items) expect(item).toMatchObject({ state: 'queued', errorCode: 'provider_down', attempts: 1 });
    for (const delay of delays) {
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThan(BASE_DELAY_MS);
    }
    expect(new Set(delays).size).toBeGreaterThan(1);
  });
});
