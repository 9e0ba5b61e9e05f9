import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { EXAMPLE_WORKER_ENTRY } from '../../../infra/app/stacks/leasefence-stack.js';
import { cdkJsonContext } from '../../../infra/app/synth.js';
import { FencedJobQueue } from '../../../infra/construct/index.js';
import { EnvironmentVariable } from '../../../lib/config.js';
import { defineJob } from '../../../lib/job-definition.js';
import { defineSchedule } from '../../../lib/messaging/schedule.js';
import { tickSchedule } from '../../../lib/messaging/schedule-tick.js';
import { type SenderTenants, senderTenantsSchema } from '../../../lib/messaging/sender-tenants.js';
import { logicalIdOf, render, type Template as TemplateJson } from '../../infra/support/template-queries.js';
import { carrierBusy, defineOrderJob, RETRY_AT_ONCE } from '../../support/order-jobs.js';
import { scheduleTickDeps } from '../../support/schedule-fixture.js';
import { deliverAs } from '../../support/sender-delivery.js';
import { createWorkerHarness, type WorkerHarness } from '../../support/worker-harness.js';

/*
 * Issue #39 finding 6: with a tenant-scoped producer the worker gets a sender policy, and leasefence's own messages
 * (a retry's wake-up and a successor's, sent by the worker role; an occurrence's, sent by the schedule tick role) must
 * pass it. The policy here is the one the construct synthesizes, each role's RoleId replaced by a made-up unique id,
 * and each message is delivered stamped with the SenderId of the role that sent it. No sweeper runs.
 */

const runs: string[] = [];
let failedOnce = false;
const notify = defineOrderJob('notify', async (ctx) => {
  runs.push(`notify:${ctx.payload.order}`);
  return { outcomeCode: 'notified' };
});
const ship = defineOrderJob(
  'ship',
  async (ctx) => {
    runs.push(`ship:${ctx.attempt}`);
    if (!failedOnce) {
      failedOnce = true;
      throw carrierBusy();
    }
    ctx.enqueue('notify', { order: ctx.payload.order }, { name: 'email' });
    return { outcomeCode: 'shipped' };
  },
  RETRY_AT_ONCE,
);
const report = defineJob({
  type: 'report',
  version: 1,
  target: 'B',
  payload: z.strictObject({ kind: z.string() }),
  run: async (ctx) => {
    runs.push(`report:${ctx.payload.kind}`);
    return { outcomeCode: 'reported' };
  },
});
const hourly = defineSchedule({
  name: 'hourly',
  jobType: 'report',
  tenantId: 'acme',
  payload: { kind: 'usage' },
  expression: 'rate(1 hour)',
});

/** A made-up IAM unique id for a role's logical id (what SQS would stamp as its SenderId, without the session). */
const fakeRoleId = (logicalId: string) => `AROA${logicalId.toUpperCase().replace(/[^A-Z0-9]/g, '')}`.slice(0, 40);

/** The construct's LEASEFENCE_SENDER_TENANTS with a tenant-scoped producer and a schedule, and who each sender is. */
function synthesizedPolicy(): { policy: SenderTenants; worker: string; tick: string; producer: string } {
  const app = new App({ context: { ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'OwnSenders');
  const jobs = new FencedJobQueue(stack, 'Jobs', {
    workerEntry: EXAMPLE_WORKER_ENTRY,
    schedules: [
      { name: 'hourly', jobType: 'report', tenantId: 'acme', payload: { kind: 'usage' }, expression: 'rate(1 hour)' },
    ],
  });
  const producer = new iam.Role(stack, 'AcmeProducer', { assumedBy: new iam.AccountRootPrincipal() });
  jobs.grantSendJobs(producer, { tenant: { tenantId: 'acme' } });
  const json = Template.fromStack(stack).toJSON() as TemplateJson;
  const environment = json.Resources[logicalIdOf(stack, jobs.worker)]?.Properties?.Environment as {
    Variables: Record<string, unknown>;
  };
  const rendered = render(environment.Variables[EnvironmentVariable.senderTenants]).replace(
    /"([A-Za-z0-9]+)\.RoleId"/g,
    (_match, logicalId: string) => `"${fakeRoleId(logicalId)}"`,
  );
  const idOf = (role: unknown) => fakeRoleId(logicalIdOf(stack, role as iam.Role));
  return {
    policy: senderTenantsSchema.parse(JSON.parse(rendered)),
    worker: idOf(jobs.worker.role),
    tick: idOf(jobs.schedules?.tickFunction.role),
    producer: idOf(producer),
  };
}

describe("leasefence's own messages run under a tenant-scoped producer policy, without the sweeper", () => {
  let harness: WorkerHarness;
  let handler: ReturnType<WorkerHarness['worker']>;
  let senders: ReturnType<typeof synthesizedPolicy>;

  /** Delivers what is queued as sent by a session of `senderId` (deliverAs); how many messages it found. */
  const deliver = async (senderId: string) => (await deliverAs(harness, handler, `${senderId}:session`)).received;

  const refusedSenders = async () =>
    ((await harness.client.send(new ScanCommand({ TableName: harness.tables.jobsTable }))).Items ?? []).filter(
      (row) => row.kind === 'quarantine' && row.reason === 'tenant_not_allowed_for_sender',
    );

  beforeAll(async () => {
    senders = synthesizedPolicy();
    harness = await createWorkerHarness('own-senders', [ship, notify, report]);
    handler = harness.worker({ senderTenants: senders.policy });
  });
  afterAll(() => harness.close());

  it("a retry's wake-up and a successor's, sent by the worker role, each run at once", async () => {
    // Prepare: acme's producer sends; its first attempt fails retryably (the worker sends the retry's wake-up).
    await harness.send({ tenantId: 'acme', operationId: 'order-1', jobType: 'ship', payload: { order: 'o-1' } });
    expect(await deliver(senders.producer)).toBe(1);
    expect(runs).toEqual(['ship:1']);

    // Act: the retry's wake-up, then the successor's, each as the worker role sent it.
    expect(await deliver(senders.worker)).toBe(1);
    expect(await deliver(senders.worker)).toBe(1);

    // Assert
    expect(runs).toEqual(['ship:1', 'ship:2', 'notify:o-1']);
    expect(await refusedSenders()).toEqual([]);
  });

  it("an occurrence's wake-up, sent by the schedule tick role, runs at once", async () => {
    // Prepare
    const tick = await tickSchedule(scheduleTickDeps(harness, [hourly]), 'hourly', harness.clock.now());
    expect(tick).toMatchObject({ outcome: 'created', wake: 'sent' });

    // Act
    expect(await deliver(senders.tick)).toBe(1);

    // Assert
    expect(runs).toContain('report:usage');
    expect(await refusedSenders()).toEqual([]);
  });
});
