import { PutCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { examplesTableDefinition } from '../../examples/jobs/examples-table.js';
import type { JobConformanceModule } from '../../infra/testing/module.js';
import { defineJob, type JobContext, type JobDefinition } from '../../lib/job-definition.js';
import { FakeGateway, FakeMailer } from './fake-external.js';

const orderPayload = z.strictObject({ accountId: z.string().min(1), amount: z.number().positive() });
type OrderPayload = z.infer<typeof orderPayload>;
const ownership = { owner: 'conformance-tests', alertRoute: 'test:alerts', reversibility: 'irreversible' } as const;

/** The record one operation owns (class B done right): keyed by the operation's identity. */
function orderRecord(tableName: string, ctx: JobContext<OrderPayload, unknown>) {
  return { tableName, key: { pk: `order#${ctx.identity.tenantId}#${ctx.identity.operationId}`, sk: 'order' } };
}

/** A class B job done right: one fenced write to a record keyed by its operation. */
function goodOrderJob(tableName: string) {
  return defineJob({
    type: 'good-order',
    version: 1,
    target: 'B',
    ...ownership,
    payload: orderPayload,
    run: async (ctx) => {
      await ctx.records.write(orderRecord(tableName, ctx), { set: { status: 'placed', amount: ctx.payload.amount } });
      return { outcomeCode: 'placed' };
    },
  });
}

/** goodOrderJob with concurrency limits (one at a time per account, two per tenant): `check` must still say GO. */
function limitedOrderJob(tableName: string) {
  return defineJob({
    type: 'limited-order',
    version: 1,
    target: 'B',
    ...ownership,
    payload: orderPayload,
    flow: { concurrency: { perTenant: 2, perKey: { limit: 1, key: (payload) => payload.accountId } } },
    run: async (ctx) => {
      await ctx.records.write(orderRecord(tableName, ctx), { set: { status: 'placed', amount: ctx.payload.amount } });
      return { outcomeCode: 'placed' };
    },
  });
}

/** A class D job done right: one attempt, its provider declared. */
function goodNotifyJob() {
  const mailer = new FakeMailer();
  return defineJob({
    type: 'good-notify',
    version: 1,
    target: 'D',
    ...ownership,
    payload: orderPayload,
    provider: { create: () => mailer, effects: ['send'] },
    run: async (ctx) => {
      await ctx.provider.send(ctx.payload.accountId);
      return { outcomeCode: 'sent' };
    },
  });
}

/**
 * The known-bad definitions `check` must call NO-GO, each on its own control: an unfenced raw-client write (4),
 * a class C reconcile that never finds the effect (6), a class D job with retries (5, 6), and a record keyed so
 * that two operations share it (5).
 */
function knownBadJobs(tableName: string): Array<JobDefinition<unknown>> {
  const rawClientWrite = defineJob({
    type: 'raw-client-write',
    version: 1,
    target: 'B',
    ...ownership,
    payload: orderPayload,
    run: async (ctx) => {
      const { key } = orderRecord(tableName, ctx);
      await ctx.client.send(new PutCommand({ TableName: tableName, Item: { ...key, status: 'placed' } }));
      return { outcomeCode: 'placed' };
    },
  });
  const gateway = new FakeGateway();
  const reconcileNeverFinds = defineJob({
    type: 'reconcile-never-finds',
    version: 1,
    target: 'C',
    ...ownership,
    payload: orderPayload,
    provider: { create: () => gateway, effects: ['charge'], keyRetentionMs: 86_400_000 },
    run: async (ctx) => {
      const charge = await ctx.provider.charge(ctx.idempotencyKey, ctx.payload.amount);
      return { outcomeCode: 'charged', result: { chargeId: charge.id } };
    },
    reconcile: async () => ({ status: 'not_done' }),
  });
  const mailer = new FakeMailer();
  const notify = defineJob({
    type: 'class-d-with-retries',
    version: 1,
    target: 'D',
    ...ownership,
    payload: orderPayload,
    provider: { create: () => mailer, effects: ['send'] },
    run: async (ctx) => {
      await ctx.provider.send(ctx.payload.accountId);
      return { outcomeCode: 'sent' };
    },
  });
  // defineJob refuses class D with more than one attempt; a hand-built object gets past it, not past the harness.
  const classDWithRetries = { ...notify, maxAttempts: 3 };
  const sharedRecord = defineJob({
    type: 'record-shared-by-operations',
    version: 1,
    target: 'B',
    ...ownership,
    payload: orderPayload,
    run: async (ctx) => {
      const balance = { tableName, key: { pk: `balance#${ctx.identity.tenantId}#${ctx.payload.accountId}`, sk: 'b' } };
      await ctx.records.write(balance, { set: { lastAmount: ctx.payload.amount } });
      return { outcomeCode: 'booked' };
    },
  });
  return [rawClientWrite, reconcileNeverFinds, classDWithRetries, sharedRecord];
}

/** Sample payloads for a module of these jobs. */
function fixtureConformance(types: readonly string[]): NonNullable<JobConformanceModule['conformance']> {
  const sample = [{ accountId: 'account-42', amount: 70.25 }];
  return { samplePayloads: Object.fromEntries(types.map((type) => [type, sample])) };
}

/** The pk/sk table these jobs write to. */
function fixtureTables(tableName: string) {
  return [examplesTableDefinition(tableName)];
}

export { fixtureConformance, fixtureTables, goodNotifyJob, goodOrderJob, knownBadJobs, limitedOrderJob };
