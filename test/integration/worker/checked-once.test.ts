import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { systemClock } from '../../../lib/clock.js';
import { InvalidInputError } from '../../../lib/errors.js';
import { payloadHash } from '../../../lib/hashing.js';
import { parseIdentity } from '../../../lib/identity.js';
import { type AnyJobDefinition, defineJob, JobRegistry } from '../../../lib/job-definition.js';
import { serializeEnvelope } from '../../../lib/messaging/envelope.js';
import { PayloadStore } from '../../../lib/store/payloads/payloads.js';
import { WorkItemStore } from '../../../lib/store/work-item-store.js';
import { WorkerRuntime } from '../../../lib/worker/worker-runtime.js';
import { createTestTables, type TestTables, testDocumentClient } from '../../support/engine.js';

// The worker parses each input once at its boundary: the message body (parseEnvelope), the job type's lease (its
// definition and the worker id, on the type's first message) and the attempt budget the new row records (the one
// builder, newWorkItem). These are the inputs that path must still refuse, before anything is written.

const payload = { amount: 5 };
const ping = defineJob({
  type: 'ping',
  version: 1,
  target: 'B',
  payload: z.strictObject({ amount: z.number() }),
  run: async () => ({ outcomeCode: 'done' }),
});

function message(operationId: string, jobType = 'ping') {
  const body = serializeEnvelope({
    v: 1,
    kind: 'job',
    tenantId: 'acme',
    operationId,
    jobType,
    payloadHash: payloadHash(payload),
    payload: { inline: true },
  });
  return { messageId: `m-${operationId}`, body };
}

describe('inputs the worker checks once', () => {
  let tables: TestTables;
  const client = testDocumentClient();
  let store: WorkItemStore;
  let payloads: PayloadStore;
  const rows = async () =>
    (await client.send(new ScanCommand({ TableName: tables.jobsTable }))).Items?.filter((item) => item.kind === 'work')
      .length ?? 0;

  beforeAll(async () => {
    tables = await createTestTables('checked-once');
    store = new WorkItemStore({ client, tableName: tables.jobsTable });
    payloads = new PayloadStore(client, tables.payloadsTable, systemClock);
  });
  afterAll(() => client.destroy());

  const runtime = (definition: AnyJobDefinition, workerId?: string) =>
    new WorkerRuntime({
      store,
      client,
      registry: new JobRegistry([definition]),
      payloads,
      ...(workerId !== undefined ? { workerId } : {}),
    });

  it('refuses an empty worker id as the lease owner, on every message, and writes no row', async () => {
    const worker = runtime(ping, '');
    await expect(worker.handleMessage(message('bad-owner-1'))).rejects.toBeInstanceOf(InvalidInputError);
    await expect(worker.handleMessage(message('bad-owner-2'))).rejects.toThrow(/invalid lease: owner/);
    expect(await rows()).toBe(0);
  });

  it('refuses a hand-built job definition whose lease is 0 ms, on every message, and writes no row', async () => {
    const handBuilt = { ...ping, type: 'ping-no-lease', leaseMs: 0 } as AnyJobDefinition;
    const worker = runtime(handBuilt, 'worker-c');
    for (const operationId of ['bad-lease-1', 'bad-lease-2']) {
      const error = await worker.handleMessage(message(operationId, 'ping-no-lease')).catch((thrown) => thrown);
      expect(error).toBeInstanceOf(InvalidInputError);
      expect((error as InvalidInputError).issues.map((issue) => issue.path)).toEqual(['leaseMs']);
    }
    expect(await rows()).toBe(0);
  });

  it('refuses a hand-built job definition whose maxAttempts is outside 1..100, and writes no row', async () => {
    const handBuilt = { ...ping, type: 'ping-hand-built', maxAttempts: 0 } as AnyJobDefinition;
    const worker = runtime(handBuilt, 'worker-a');
    // Its payload verifies, so the worker goes on to build the row (a first message without one creates nothing).
    await payloads.put({ tenantId: 'acme', operationId: 'bad-attempts' }, payload, payloadHash(payload));
    const error = await worker.handleMessage(message('bad-attempts', 'ping-hand-built')).catch((thrown) => thrown);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as InvalidInputError).issues.map((issue) => issue.path)).toEqual(['maxAttempts']);
    expect(await rows()).toBe(0);
  });

  it('reuses one checked lease for many messages of a type: each job still claims and completes once', async () => {
    await payloads.put({ tenantId: 'acme', operationId: 'good-1' }, payload, payloadHash(payload));
    await payloads.put({ tenantId: 'acme', operationId: 'good-2' }, payload, payloadHash(payload));
    const worker = runtime(ping, 'worker-b');
    const results = [await worker.handleMessage(message('good-1')), await worker.handleMessage(message('good-2'))];
    expect(results.map((result) => result.status === 'executed' && result.result.state)).toEqual([
      'succeeded',
      'succeeded',
    ]);
    const stored = await store.get(parseIdentity({ tenantId: 'acme', operationId: 'good-2' }));
    expect(stored).toMatchObject({ state: 'succeeded', fence: 1, targetClass: 'B' });
  });
});
