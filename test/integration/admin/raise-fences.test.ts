import { CreateTableCommand, DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { examplesTableDefinition } from '../../../examples/jobs/examples-table.js';
import { main } from '../../../infra/cli/main.js';
import { listAuditRecords } from '../../../lib/admin/audit.js';
import type { AdminDeps } from '../../../lib/admin/deps.js';
import { MAX_FENCE_RAISE, raiseFences } from '../../../lib/admin/raise-fences.js';
import { handleAdminRequest } from '../../../lib/admin/router.js';
import { writerOperation } from '../../../lib/fenced/fence-rules.js';
import { payloadHash } from '../../../lib/hashing.js';
import { parseIdentity } from '../../../lib/identity.js';
import { defineJob } from '../../../lib/job-definition.js';
import { parseLease, parseNewWorkItem } from '../../../lib/store/schemas.js';
import { sweep } from '../../../lib/sweeper/sweeper.js';
import { engineEndpoints, testDocumentClient, uniqueName } from '../../support/engine.js';
import { createWorkerHarness, type WorkerHarness } from '../../support/worker-harness.js';
import { captureIo } from '../../unit/cli/io.js';

const recordsTable = uniqueName('restore-records');
const LEASE_MS = 5_000;

/** Class B: one record owned by the operation, written once per claim under its fence. */
const ledger = defineJob({
  type: 'ledger',
  version: 1,
  target: 'B',
  maxAttempts: 5,
  leaseMs: LEASE_MS,
  payload: z.strictObject({ entry: z.string() }),
  run: async (ctx) => {
    const ref = { tableName: recordsTable, key: { pk: `ledger#${ctx.identity.operationId}`, sk: 'entry' } };
    await ctx.records.write(ref, { set: { entry: ctx.payload.entry } });
    return { outcomeCode: 'booked' };
  },
});

describe('restores: raise-fences lets a class B job stalled by a rolled-back fence run again', () => {
  let harness: WorkerHarness;
  let admin: AdminDeps;
  beforeAll(async () => {
    const client = testDocumentClient();
    await client.send(new CreateTableCommand(examplesTableDefinition(recordsTable)));
    client.destroy();
    harness = await createWorkerHarness('restore', [ledger]);
    admin = { store: harness.store, sqs: harness.sqs, queueUrl: harness.queueUrl, payloadsTable: 'unused' };
  });
  afterAll(async () => {
    await harness.client.send(new DeleteTableCommand({ TableName: recordsTable }));
    await harness.close();
  });

  /** One lease later: the sweeper re-signals the expired claim and a worker tries again. */
  async function nextAttempt() {
    harness.clock.advance(LEASE_MS + 1);
    await sweep({ store: harness.store, sqs: harness.sqs, queueUrl: harness.queueUrl, clock: harness.clock });
    const worker = harness.worker();
    await harness.poll(worker, { waitTimeSeconds: 2 });
    return worker;
  }

  it('stalls on newer_claim after the simulated restore, runs to success after raise-fences', async () => {
    // prepare: the record was written at fence 3 before the jobs table was restored to a point where the
    // row did not exist yet (the record tables were not restored).
    const identity = parseIdentity({ tenantId: 'bank', operationId: 'entry-7' });
    const key = { pk: 'ledger#entry-7', sk: 'entry' };
    await harness.client.send(
      new PutCommand({
        TableName: recordsTable,
        Item: {
          ...key,
          entry: 'before the restore',
          writer_epoch: 3,
          writer_seq: 0,
          writer_op: writerOperation(identity),
        },
      }),
    );
    await harness.send({ ...identity, jobType: 'ledger', payload: { entry: 'after the restore' } });

    // act 1: the job stalls, attempt after attempt
    const first = harness.worker();
    await harness.poll(first);
    const second = await nextAttempt();
    const stalled = await harness.store.get(identity);

    // act 2: the operator raises every fence above anything written before
    const reply = await handleAdminRequest(
      {
        method: 'POST',
        path: '/fences/raise',
        body: JSON.stringify({ above: 3, reason: 'jobs table restored alone to 09:00' }),
        actor: 'arn:aws:iam::1:user/ops',
      },
      admin,
    );
    const raised = await harness.store.get(identity);
    const third = await nextAttempt();

    // assert
    expect(first.telemetry.counts).toMatchObject({ StaleFenceRejected: 1 });
    expect(second.telemetry.counts).toMatchObject({ StaleFenceRejected: 1 });
    expect(stalled).toMatchObject({ state: 'claimed', fence: 2, attempts: 2 });
    expect(reply).toMatchObject({ statusCode: 200, body: { raised: 1, complete: true } });
    expect(raised).toMatchObject({ state: 'claimed', fence: 4 });
    expect(raised?.audit?.at(-1)).toMatchObject({ action: 'raise_fence', fence: 4, from: 'claimed', to: 'claimed' });
    expect(third.telemetry.counts).toMatchObject({ Succeeded: 1 });
    expect(await harness.store.get(identity)).toMatchObject({ state: 'succeeded', fence: 5 });
    const record = await harness.client.send(new GetCommand({ TableName: recordsTable, Key: key }));
    expect(record.Item).toMatchObject({ entry: 'after the restore', writer_epoch: 5 });
  });

  it('is resumable: a bounded call returns a cursor, the next call continues, each call is audited', async () => {
    for (let index = 0; index < 5; index += 1) {
      await harness.store.enqueue(
        parseNewWorkItem({
          identity: parseIdentity({ tenantId: 'bulk', operationId: `row-${index}` }),
          jobType: 'ledger',
          payloadHash: payloadHash({ index }),
          payloadRef: `ref-${index}`,
          maxAttempts: 5,
        }),
      );
    }
    const action = { above: 100, reason: 'restore drill', actor: 'ops' };

    const firstCall = await raiseFences(admin, { ...action, max: 2 });
    const rest = await raiseFences(admin, { ...action, cursor: firstCall.cursor as string });
    const again = await raiseFences(admin, action);

    expect(firstCall).toMatchObject({ scanned: 2, complete: false, cursor: expect.any(String) });
    expect(rest.complete).toBe(true);
    expect(firstCall.raised + rest.raised).toBe(firstCall.scanned + rest.scanned);
    for (let index = 0; index < 5; index += 1) {
      expect(await harness.store.get(parseIdentity({ tenantId: 'bulk', operationId: `row-${index}` }))).toMatchObject({
        fence: 101,
      });
    }
    expect(again).toMatchObject({ raised: 0, complete: true });
    expect(again.alreadyAbove).toBe(again.scanned);
    const audit = await handleAdminRequest(
      { method: 'GET', path: '/audit', query: { limit: '3' }, actor: 'ops' },
      admin,
    );
    const listed = (audit.body.records as Array<{ auditId: string }>).map((record) => record.auditId);
    // Records of one millisecond (a manual clock) sort by their random id: compare as sets.
    expect(new Set(listed)).toEqual(new Set([again.auditId, rest.auditId, firstCall.auditId]));
  });

  it('the CLI walks the whole table in audited chunks and reports the totals', async () => {
    const { dynamo, sqs } = engineEndpoints();
    const io = captureIo();
    const target = ['--jobs-table', harness.tables.jobsTable, '--payloads-table', harness.tables.payloadsTable];
    const endpoints = ['--queue-url', harness.queueUrl, '--dynamodb-endpoint', dynamo, '--sqs-endpoint', sqs];
    const shards = ['--deadline-shards', String(harness.store.deadlines.shardCount)];

    const code = await main(
      ['raise-fences', '--above', '200', '--reason', 'drill', '--json', ...target, ...endpoints, ...shards],
      io,
    );

    expect(code).toBe(0);
    const totals = JSON.parse(io.stdout());
    expect(totals).toMatchObject({ above: 200, alreadyAbove: 0, lostRaces: 0, complete: true });
    expect(totals.raised).toBe(totals.scanned);
    expect(totals.raised).toBeGreaterThanOrEqual(6);
  });

  it('refuses an `above` past the cap (10^12) with a 400 naming it, and writes nothing', async () => {
    // prepare
    const identity = parseIdentity({ tenantId: 'cap', operationId: 'too-high' });
    await harness.store.enqueue(
      parseNewWorkItem({
        identity,
        jobType: 'ledger',
        payloadHash: payloadHash({ cap: 1 }),
        payloadRef: 'ref-cap',
        maxAttempts: 5,
      }),
    );
    const before = await harness.store.get(identity);
    const auditsBefore = (await listAuditRecords(admin, { limit: 100 })).records.length;

    // act
    const replies = await Promise.all(
      [Number.MAX_SAFE_INTEGER - 1, MAX_FENCE_RAISE + 1].map((above) =>
        handleAdminRequest(
          { method: 'POST', path: '/fences/raise', body: JSON.stringify({ above, reason: 'drill' }), actor: 'ops' },
          admin,
        ),
      ),
    );

    // assert
    for (const reply of replies) {
      expect(reply).toMatchObject({ statusCode: 400, body: { error: 'invalid_input', issues: [{ path: 'above' }] } });
    }
    expect(await harness.store.get(identity)).toEqual(before);
    expect((await listAuditRecords(admin, { limit: 100 })).records).toHaveLength(auditsBefore);
  });

  it('at the cap every item stays claimable: raised to 10^12 + 1, the next claim carries 10^12 + 2', async () => {
    const identity = parseIdentity({ tenantId: 'cap', operationId: 'at-cap' });
    await harness.store.enqueue(
      parseNewWorkItem({
        identity,
        jobType: 'ledger',
        payloadHash: payloadHash({ cap: 2 }),
        payloadRef: 'ref-cap-2',
        maxAttempts: 5,
      }),
    );

    const report = await raiseFences(admin, { above: MAX_FENCE_RAISE, reason: 'drill at the cap', actor: 'ops' });
    const claim = await harness.store.claim(identity, parseLease({ owner: 'w-cap', leaseMs: LEASE_MS }));

    expect(report.complete).toBe(true);
    expect(claim).toMatchObject({ claimed: true, claim: { fence: MAX_FENCE_RAISE + 2 } });
    expect(await harness.store.get(identity)).toMatchObject({ state: 'claimed', fence: MAX_FENCE_RAISE + 2 });
  });
});
