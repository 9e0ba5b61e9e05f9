import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { AdminDeps } from '../../../lib/admin/deps.js';
import { erasePayloads } from '../../../lib/admin/erase-payloads.js';
import { parseIdentity } from '../../../lib/identity.js';
import { defineJob } from '../../../lib/job-definition.js';
import { queryParkedByState, queryParkedByTenant } from '../../support/store.js';
import { createWorkerHarness, type WorkerHarness } from '../../support/worker-harness.js';

/** Text a job touched that must not outlive an erasure, or (the error's) be stored at all. */
const ERROR_SECRET = 'card-4111-1111-1111-1111';
const STEP_SECRET = 'ada.lovelace@example.com';
const RESULT_SECRET = 'receipt-for-ada-lovelace';

/** Looks a customer up (a durable step), then parses a malformed document: Node's SyntaxError quotes the input. */
const parse = defineJob({
  type: 'parse',
  version: 1,
  target: 'B',
  maxAttempts: 1,
  payload: z.strictObject({ document: z.string() }),
  run: async (ctx) => {
    await ctx.step('lookup', async () => ({ email: STEP_SECRET }));
    JSON.parse(ctx.payload.document);
    return { outcomeCode: 'parsed' };
  },
});

/** Succeeds with a result naming the customer. */
const settle = defineJob({
  type: 'settle',
  version: 1,
  target: 'B',
  payload: z.strictObject({ amount: z.number() }),
  run: async () => ({ outcomeCode: 'settled', result: { receipt: RESULT_SECRET } }),
});

describe('what a work row keeps of a job’s text, and what erasure removes', () => {
  let harness: WorkerHarness;
  let admin: AdminDeps;
  const scanJobs = async () =>
    (await harness.client.send(new ScanCommand({ TableName: harness.tables.jobsTable }))).Items ?? [];

  beforeAll(async () => {
    harness = await createWorkerHarness('stored-text', [parse, settle]);
    admin = {
      store: harness.store,
      sqs: harness.sqs,
      queueUrl: harness.queueUrl,
      payloadsTable: harness.tables.payloadsTable,
    };
    await harness.send({
      tenantId: 'privacy',
      operationId: 'parse-1',
      jobType: 'parse',
      payload: { document: `{"card":"${ERROR_SECRET}"` },
    });
    await harness.send({ tenantId: 'privacy', operationId: 'settle-1', jobType: 'settle', payload: { amount: 5 } });
    await harness.send({ tenantId: 'other', operationId: 'settle-2', jobType: 'settle', payload: { amount: 6 } });
    await harness.poll(harness.worker());
  });
  afterAll(() => harness.close());

  it('an unclassified error is stored as a code and the error’s name, never its message (row and both parked indexes)', async () => {
    const row = await harness.store.get(parseIdentity({ tenantId: 'privacy', operationId: 'parse-1' }));
    const byState = await queryParkedByState(harness.client, harness.tables.jobsTable, 'unknown');
    const byTenant = await queryParkedByTenant(harness.client, harness.tables.jobsTable, 'privacy', 'unknown');

    expect(row).toMatchObject({
      state: 'unknown',
      errorCode: 'ambiguous_outcome',
      errorMessage: 'the job threw SyntaxError (its message is not stored)',
    });
    expect(byState.map((entry) => entry.errorMessage)).toEqual([row?.errorMessage]);
    expect(byTenant.map((entry) => entry.errorMessage)).toEqual([row?.errorMessage]);
    expect(JSON.stringify([await scanJobs(), byState, byTenant])).not.toContain(ERROR_SECRET);
  });

  it("erasure removes a tenant's results, error text and step results, keeps identity, codes and fence, and leaves other tenants alone", async () => {
    // prepare: the step result and the job result are on the rows before the erasure
    const before = await scanJobs();
    expect(JSON.stringify(before)).toContain(STEP_SECRET);
    expect(JSON.stringify(before)).toContain(RESULT_SECRET);
    const rowsBefore = new Map(before.map((row) => [String(row.operationId), row]));

    // act
    const report = await erasePayloads(admin, { tenantId: 'privacy', reason: 'GDPR request 7', actor: 'ops' });
    const again = await erasePayloads(admin, { tenantId: 'privacy', reason: 'GDPR request 7', actor: 'ops' });

    // assert
    expect(report).toMatchObject({ deleted: 2, cleared: 2, complete: true });
    expect(again).toMatchObject({ deleted: 0, cleared: 0, complete: true });
    const parsed = await harness.store.get(parseIdentity({ tenantId: 'privacy', operationId: 'parse-1' }));
    const settled = await harness.store.get(parseIdentity({ tenantId: 'privacy', operationId: 'settle-1' }));
    const other = await harness.store.get(parseIdentity({ tenantId: 'other', operationId: 'settle-2' }));
    expect(parsed).not.toHaveProperty('errorMessage');
    expect(parsed?.steps.lookup).toEqual({ fence: 1, at: expect.any(Number) });
    expect(settled).not.toHaveProperty('result');
    for (const row of [parsed, settled]) {
      const { result, errorMessage, steps, updatedAt, textErasedAt, ...kept } = row as unknown as Record<
        string,
        unknown
      >;
      const {
        result: r0,
        errorMessage: e0,
        steps: s0,
        updatedAt: u0,
        ...keptBefore
      } = rowsBefore.get(String(row?.operationId)) as Record<string, unknown>;
      expect(kept).toEqual(keptBefore);
      expect(textErasedAt).toEqual(expect.any(Number));
    }
    expect(other).toMatchObject({ state: 'succeeded', result: { receipt: RESULT_SECRET } });
    const privacyRows = (await scanJobs()).filter((row) => row.tenantId === 'privacy');
    expect(JSON.stringify(privacyRows)).not.toContain(STEP_SECRET);
    expect(JSON.stringify(privacyRows)).not.toContain(RESULT_SECRET);
  });
});
