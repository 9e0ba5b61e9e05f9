import { CreateTableCommand, DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { examplesTableDefinition } from '../../../examples/jobs/examples-table.js';
import { inventoryReservationJob } from '../../../examples/jobs/inventory-reservation.js';
import { main } from '../../../infra/cli/main.js';
import { listAuditRecords } from '../../../lib/admin/audit.js';
import type { AdminDeps } from '../../../lib/admin/deps.js';
import { MAX_FENCE_ABOVE, raiseFences } from '../../../lib/admin/raise-fences.js';
import { handleAdminRequest } from '../../../lib/admin/router.js';
import { OwnershipLostError } from '../../../lib/errors.js';
import { writerOperation } from '../../../lib/fenced/fence-rules.js';
import { FencedTransactions } from '../../../lib/fenced/transaction.js';
import { payloadHash } from '../../../lib/hashing.js';
import { parseIdentity, type ValidIdentity } from '../../../lib/identity.js';
import { OperatorStore } from '../../../lib/store/operator/operator-store.js';
import { WorkItemStore } from '../../../lib/store/work-item-store.js';
import { epochFloor, FENCE_EPOCH_ACCRUAL_MS, fenceEpochBudget } from '../../../lib/store/work-items/fence-epoch.js';
import { parseLease, parseNewWorkItem } from '../../../lib/store/work-items/schemas.js';
import { parseJobOutcome } from '../../../lib/store/work-items/transitions.js';
import { sweep } from '../../../lib/sweeper/sweeper.js';
import { requireTransactions } from '../../support/capability.js';
import { harnessTargetFlags } from '../../support/cli-target.js';
import { createWorkerHarness, type WorkerHarness } from '../../support/worker-harness.js';
import { captureIo } from '../../unit/cli/io.js';
import { RESTORE_RECORDS_TABLE, restoreLedgerJob } from './fixtures/restore-ledger.js';

const recordsTable = RESTORE_RECORDS_TABLE;
const LEASE_MS = 5_000;
const ledger = restoreLedgerJob(recordsTable, LEASE_MS);
const fixtureModule = new URL('./fixtures/restore-ledger.ts', import.meta.url).pathname;

/** The record the ledger job owns for `operationId`. */
const recordKey = (operationId: string) => ({ pk: `ledger#${operationId}`, sk: 'entry' });

describe('restores: a fence epoch above every fence issued before, on existing rows and rows created later', () => {
  let harness: WorkerHarness;
  let admin: AdminDeps;
  beforeAll(async () => {
    harness = await createWorkerHarness('restore', [ledger, inventoryReservationJob(recordsTable)]);
    await harness.client.send(new CreateTableCommand(examplesTableDefinition(recordsTable)));
    // The operator's store trusts no cached epoch, so a raise needs no wait here: every worker below is built
    // after the raise it follows, and reads the epoch afresh.
    const store = new OperatorStore({
      client: harness.client,
      tableName: harness.tables.jobsTable,
      clock: harness.clock,
      fenceEpochCacheMs: 0,
    });
    admin = {
      store,
      sqs: harness.sqs,
      queueUrl: harness.queueUrl,
      payloadsTable: 'unused',
      recordClient: harness.client,
    };
  });
  afterAll(async () => {
    await harness.client.send(new DeleteTableCommand({ TableName: recordsTable }));
    await harness.close();
  });

  /** A record written before the restore by a claim of `identity` at `fence` (the record tables kept it). */
  async function recordBeforeRestore(identity: ValidIdentity, fence: number) {
    await harness.client.send(
      new PutCommand({
        TableName: recordsTable,
        Item: {
          ...recordKey(identity.operationId),
          entry: 'before the restore',
          writer_epoch: fence,
          writer_seq: 0,
          writer_op: writerOperation(identity),
        },
      }),
    );
  }

  const record = async (operationId: string) =>
    (await harness.client.send(new GetCommand({ TableName: recordsTable, Key: recordKey(operationId) }))).Item;

  /** The operator's raise through the admin API, with the record tables the job types declare. */
  async function raiseThroughApi(reason: string) {
    const reply = await handleAdminRequest(
      {
        method: 'POST',
        path: '/fences/raise',
        body: JSON.stringify({ recordTables: ledger.recordTables, reason }),
        actor: 'arn:aws:iam::1:user/ops',
      },
      admin,
    );
    expect(reply.statusCode).toBe(200);
    return reply.body as { epoch: number; floor: number; raised: number; requeued: number; complete: boolean };
  }

  /** One lease later: the sweeper re-signals the expired claim and a worker tries again. */
  async function nextAttempt() {
    harness.clock.advance(LEASE_MS + 1);
    await sweep({ store: harness.store, sqs: harness.sqs, queueUrl: harness.queueUrl, clock: harness.clock });
    const worker = harness.worker();
    await harness.poll(worker, { waitTimeSeconds: 2 });
    return worker;
  }

  it('a record above every fence the restored jobs table issued: parked restore_mismatch at once (alarm metric), no loop; the raise requeues it and it succeeds', async () => {
    // prepare: the record was written at fence 3 before the jobs table was restored to a point where the
    // row did not exist yet (the record tables were not restored).
    const identity = parseIdentity({ tenantId: 'bank', operationId: 'entry-7' });
    await recordBeforeRestore(identity, 3);
    await harness.send({ ...identity, jobType: 'ledger', payload: { entry: 'after the restore' } });

    // act 1: the first attempt meets the record; a lease later, the sweeper and a worker find nothing to retry
    const first = harness.worker();
    await harness.poll(first);
    const parked = await harness.store.get(identity);
    const second = await nextAttempt();
    const stillParked = await harness.store.get(identity);

    // act 2: the operator raises the epoch; no floor given, the record table is read
    const raised = await raiseThroughApi('jobs table restored alone to 09:00');
    const requeued = await harness.store.get(identity);
    const third = harness.worker();
    await harness.poll(third, { waitTimeSeconds: 2 });

    // assert
    const floor = epochFloor(raised.epoch);
    expect(first.telemetry.counts).toMatchObject({ RestoreMismatch: 1 });
    expect(first.telemetry.counts.StaleFenceRejected ?? 0).toBe(0);
    expect(parked).toMatchObject({ state: 'failed_terminal', errorCode: 'restore_mismatch', fence: 1, attempts: 1 });
    expect(parked?.errorMessage).toMatch(/writer_epoch 3, above every fence .* raise-fences/);
    expect(second.telemetry.counts.Claims ?? 0).toBe(0);
    expect(stillParked).toMatchObject({ state: 'failed_terminal', errorCode: 'restore_mismatch', attempts: 1 });
    expect(raised).toMatchObject({ epoch: 1, floor: 3, requeued: 1, complete: true });
    expect(requeued).toMatchObject({ state: 'queued', fence: floor, attempts: 0 });
    expect(requeued?.audit?.at(-1)).toMatchObject({ action: 'raise_fence_requeue', from: 'failed_terminal' });
    expect(third.telemetry.counts).toMatchObject({ Succeeded: 1 });
    expect(await harness.store.get(identity)).toMatchObject({ state: 'succeeded', fence: floor + 1 });
    expect(await record('entry-7')).toMatchObject({ entry: 'after the restore', writer_epoch: floor + 1 });
  });

  it('an item parked fence_same_claim_already_wrote by a restored fence equal to the record epoch runs again after the raise', async () => {
    // prepare: before the restore, this operation's claim at the epoch's first fence wrote its record; the
    // restored jobs table does not have the row, so the new row's first claim carries that same fence.
    const identity = parseIdentity({ tenantId: 'bank', operationId: 'entry-8' });
    const epochBefore = await admin.store.epochs.read();
    await recordBeforeRestore(identity, epochFloor(epochBefore) + 1);
    await harness.send({ ...identity, jobType: 'ledger', payload: { entry: 'after the restore' } });
    await harness.poll(harness.worker());
    const parked = await harness.store.get(identity);

    // act
    const raised = await raiseThroughApi('jobs table restored alone to 10:00');
    const requeued = await harness.store.get(identity);
    const worker = harness.worker();
    await harness.poll(worker, { waitTimeSeconds: 2 });

    // assert
    const floor = epochFloor(raised.epoch);
    expect(parked).toMatchObject({
      state: 'failed_terminal',
      errorCode: 'fence_same_claim_already_wrote',
      fence: epochFloor(epochBefore) + 1,
    });
    expect(raised).toMatchObject({ epoch: epochBefore + 1, requeued: 1, complete: true });
    expect(requeued).toMatchObject({ state: 'queued', fence: floor, attempts: 0 });
    expect(requeued?.audit?.at(-1)).toMatchObject({ action: 'raise_fence_requeue', from: 'failed_terminal' });
    expect(worker.telemetry.counts).toMatchObject({ Succeeded: 1 });
    expect(await harness.store.get(identity)).toMatchObject({ state: 'succeeded', fence: floor + 1 });
    expect(await record('entry-8')).toMatchObject({ entry: 'after the restore', writer_epoch: floor + 1 });
  });

  it('a row created after the raise starts in the new epoch, above the writer_epoch the record tables kept: first attempt succeeds', async () => {
    // prepare: claims up to fence 7 of the epoch wrote the record; the restored jobs table lost the row.
    const identity = parseIdentity({ tenantId: 'bank', operationId: 'entry-9' });
    const epochBefore = await admin.store.epochs.read();
    await recordBeforeRestore(identity, epochFloor(epochBefore) + 7);

    // act
    const raised = await raiseThroughApi('jobs table restored alone to 11:00');
    await harness.send({ ...identity, jobType: 'ledger', payload: { entry: 'created after the raise' } });
    const worker = harness.worker();
    await harness.poll(worker);

    // assert
    const floor = epochFloor(raised.epoch);
    expect(raised.floor).toBe(epochFloor(epochBefore) + 7);
    expect(worker.telemetry.counts).toMatchObject({ Succeeded: 1 });
    expect(worker.telemetry.counts.StaleFenceRejected ?? 0).toBe(0);
    expect(await harness.store.get(identity)).toMatchObject({ state: 'succeeded', fence: floor + 1, attempts: 1 });
    expect(await record('entry-9')).toMatchObject({ writer_epoch: floor + 1 });
  });

  it('old holders stay fenced: a claim from before the raise can neither renew nor complete, the new claim is above it', async () => {
    // prepare: a holder claims in the old epoch
    const identity = parseIdentity({ tenantId: 'bank', operationId: 'entry-10' });
    await harness.store.enqueue(
      parseNewWorkItem({
        identity,
        jobType: 'ledger',
        payloadHash: payloadHash({ entry: 'held' }),
        payloadRef: 'ref-10',
        maxAttempts: 5,
      }),
    );
    const old = await harness.store.claim(identity, parseLease({ owner: 'w-old', leaseMs: LEASE_MS }));
    if (!old.claimed) throw new Error('prepare: the claim did not happen');

    // act
    const raised = await raiseFences(admin, { reason: 'drill', actor: 'ops' });
    harness.clock.advance(LEASE_MS + 1);
    const fresh = await harness.store.claim(identity, parseLease({ owner: 'w-new', leaseMs: LEASE_MS }));
    // Both settle before either is looked at: a rejection left unobserved while the other is awaited is unhandled.
    const [renew, complete] = await Promise.allSettled([
      harness.store.heartbeat(old.claim, parseLease({ owner: 'w-old', leaseMs: LEASE_MS }).leaseMs),
      harness.store.complete(old.claim, parseJobOutcome({ outcomeCode: 'stale' })),
    ]);

    // assert
    expect(old.claim.fence).toBeLessThan(epochFloor(raised.epoch));
    expect(fresh).toMatchObject({ claimed: true, claim: { fence: epochFloor(raised.epoch) + 1 } });
    for (const refused of [renew, complete]) {
      expect(refused.status).toBe('rejected');
      expect(refused.status === 'rejected' && refused.reason).toBeInstanceOf(OwnershipLostError);
    }
    expect(await harness.store.get(identity)).toMatchObject({ state: 'claimed', leaseOwner: 'w-new' });
  });

  it('a store that read the epoch just before the raise creates no row below it afterwards (the raise waits out every cached epoch)', async () => {
    // prepare: a worker's store (wall clock, epochs cached for CACHE_MS, as deployed) reads the epoch; the raise
    // is run by a store with the same cache setting, so it waits that long before it walks the table.
    const CACHE_MS = 4_000;
    const stores = { client: harness.client, tableName: harness.tables.jobsTable, fenceEpochCacheMs: CACHE_MS };
    const worker = new WorkItemStore(stores);
    const before = await worker.epochs.current();
    const raiser: AdminDeps = { ...admin, store: new OperatorStore(stores) };
    const identity = parseIdentity({ tenantId: 'bank', operationId: 'entry-cached' });

    // act: the raise completes, then the worker creates a row (model mutation raise-no-wait: created in the old epoch)
    const raised = await raiseFences(raiser, { reason: 'drill', actor: 'ops' });
    await worker.enqueue(
      parseNewWorkItem({
        identity,
        jobType: 'ledger',
        payloadHash: payloadHash({ entry: 'after' }),
        payloadRef: 'ref-cached',
        maxAttempts: 5,
      }),
    );

    // assert: the row starts at the new epoch's floor, above every fence issued before the raise
    expect(raised.epoch).toBeGreaterThan(before);
    expect(await worker.get(identity)).toMatchObject({ state: 'queued', fence: epochFloor(raised.epoch) });
  });

  it('is resumable: a bounded call returns a cursor and its epoch, the next call continues, each call is audited', async () => {
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
    const action = { reason: 'restore drill', actor: 'ops' };

    const firstCall = await raiseFences(admin, { ...action, max: 2 });
    const cursor = firstCall.cursor as string;
    const withoutEpoch = await raiseFences(admin, { ...action, cursor }).catch((error: unknown) => error);
    const otherEpoch = await raiseFences(admin, { ...action, cursor, epoch: firstCall.epoch - 1 }).catch(
      (error: unknown) => error,
    );
    const rest = await raiseFences(admin, { ...action, cursor, epoch: firstCall.epoch });

    expect(firstCall).toMatchObject({ scanned: 2, complete: false, cursor: expect.any(String) });
    expect(withoutEpoch).toMatchObject({ code: 'input.invalid', issues: [{ path: 'epoch' }] });
    expect(otherEpoch).toMatchObject({ code: 'transition.illegal' });
    expect(rest).toMatchObject({ epoch: firstCall.epoch, complete: true });
    expect(rest.floor).toBeUndefined();
    for (let index = 0; index < 5; index += 1) {
      expect(await harness.store.get(parseIdentity({ tenantId: 'bulk', operationId: `row-${index}` }))).toMatchObject({
        fence: epochFloor(firstCall.epoch),
      });
    }
    const audit = await handleAdminRequest(
      { method: 'GET', path: '/audit', query: { limit: '50' }, actor: 'ops' },
      admin,
    );
    // This test's records by their reason: other tests of the file write audit records too, some on the wall clock
    // (newer than this manual clock), so "the newest four" need not be this test's.
    const records = audit.body.records as Array<{ auditId: string; action: string; reason?: string }>;
    const ids = (action: string) => records.filter((entry) => entry.action === action).map((entry) => entry.auditId);
    // Records of one millisecond (a manual clock) sort by their random id: compare as sets.
    expect(
      new Set(
        records
          .filter((entry) => entry.reason === action.reason && entry.action === 'raise_fences')
          .map((entry) => entry.auditId),
      ),
    ).toEqual(new Set([rest.auditId, firstCall.auditId]));
    // The two refused resumptions are in the audit trail too (no earlier test of the file has a refused raise).
    expect(ids('raise_fences_refused')).toHaveLength(2);
  });

  it('class A after a joint restore: the old holder commits nothing, the new holder reserves once from the restored stock', async (context) => {
    requireTransactions(context);
    // prepare: at the restore point T the row is claimed (step not done) and the stock is 100
    const identity = parseIdentity({ tenantId: 'shop', operationId: 'reserve-1' });
    const stockKey = { pk: 'inventory#shop#sku-lamp', sk: 'stock' };
    await harness.client.send(new PutCommand({ TableName: recordsTable, Item: { ...stockKey, available: 100 } }));
    await harness.store.enqueue(
      parseNewWorkItem({
        identity,
        jobType: 'inventory-reservation',
        payloadHash: payloadHash({ sku: 'sku-lamp', quantity: 2 }),
        payloadRef: 'ref-reserve-1',
        maxAttempts: 5,
      }),
    );
    const old = await harness.store.claim(identity, parseLease({ owner: 'w-old', leaseMs: LEASE_MS }));
    if (!old.claimed) throw new Error('prepare: the claim did not happen');
    const rowAtT = await harness.store.get(identity);
    const reserve = (claim: typeof old.claim) =>
      new FencedTransactions({ store: harness.store, client: harness.client, claim }).runStep('reserve', [
        {
          kind: 'update',
          tableName: recordsTable,
          key: stockKey,
          add: { available: -2 },
          where: { available: { ge: 2 } },
        },
      ]);
    // after T the old holder reserved (stock 98, step done); then the jobs table and the stock are restored to T
    await reserve(old.claim);
    await harness.client.send(new PutCommand({ TableName: harness.tables.jobsTable, Item: rowAtT as never }));
    await harness.client.send(new PutCommand({ TableName: recordsTable, Item: { ...stockKey, available: 100 } }));

    // act: raise, the old holder tries again, a new holder takes over
    const raised = await raiseThroughApi('restored jobs and inventory to T');
    const stale = await reserve(old.claim).catch((error: unknown) => error);
    harness.clock.advance(LEASE_MS + 1);
    const fresh = await harness.store.claim(identity, parseLease({ owner: 'w-new', leaseMs: LEASE_MS }));
    if (!fresh.claimed) throw new Error('the new holder could not claim');
    const landed = await reserve(fresh.claim);

    // assert
    expect(stale).toBeInstanceOf(OwnershipLostError);
    expect(fresh.claim.fence).toBe(epochFloor(raised.epoch) + 1);
    expect(landed.status).toBe('applied');
    const stock = await harness.client.send(new GetCommand({ TableName: recordsTable, Key: stockKey }));
    expect(stock.Item?.available).toBe(98);
  });

  it('the CLI reads the record tables the --jobs module declares and walks the whole table in audited chunks', async () => {
    const io = captureIo();
    const target = harnessTargetFlags(harness);
    const epochBefore = await admin.store.epochs.read();

    const code = await main(['raise-fences', '--jobs', fixtureModule, '--reason', 'drill', '--json', ...target], io);

    expect(code).toBe(0);
    const totals = JSON.parse(io.stdout());
    expect(totals).toMatchObject({ epoch: epochBefore + 1, alreadyAbove: 0, lostRaces: 0, complete: true });
    // entry-9's record carries the highest writer_epoch of the table
    expect(totals.floor).toBe((await record('entry-9'))?.writer_epoch);
    expect(totals.raised).toBe(totals.scanned);
    expect(totals.raised).toBeGreaterThanOrEqual(9);
  });

  it('the CLI refuses --above past 10^12 before it contacts anything, and passes --above-epoch on', async () => {
    const target = harnessTargetFlags(harness);
    const run = async (...flags: string[]) => {
      const io = captureIo();
      const code = await main(['raise-fences', '--reason', 'drill', '--json', ...flags, ...target], io);
      return { code, io };
    };
    const before = await admin.store.epochs.read();

    const past = await run('--above', String(10 ** 13));
    const epochFlag = await run('--above-epoch', String(before + 2));

    expect(past.code).not.toBe(0);
    expect(past.io.stderr()).toContain('--above');
    expect(epochFlag.code).toBe(0);
    expect(JSON.parse(epochFlag.io.stdout())).toMatchObject({ epoch: before + 3, complete: true });
  });

  /** The `raise_fences_refused` records of the audit trail (where `leasefence audit` and the console look). */
  const refusals = async () =>
    (await listAuditRecords(admin, { limit: 100 })).records.filter(
      (record) => record.action === 'raise_fences_refused',
    );

  it('refuses an `above` past the documented cap (10^12) with a 400 naming it, changes nothing, and audits it', async () => {
    const before = await admin.store.epochs.read();
    const refusedBefore = (await refusals()).length;

    const replies = await Promise.all(
      [Number.MAX_SAFE_INTEGER - 1, 9006099743113215, 10 ** 13, MAX_FENCE_ABOVE + 1].map((above) =>
        handleAdminRequest(
          { method: 'POST', path: '/fences/raise', body: JSON.stringify({ above, reason: 'drill' }), actor: 'ops' },
          admin,
        ),
      ),
    );

    for (const reply of replies) {
      expect(reply).toMatchObject({ statusCode: 400, body: { error: 'invalid_input', issues: [{ path: 'above' }] } });
    }
    expect(await admin.store.epochs.read()).toBe(before);
    const refused = await refusals();
    expect(refused.length).toBe(refusedBefore + replies.length);
    const drills = refused.filter((record) => record.reason === 'invalid input (above); reason given: drill');
    expect(drills).toHaveLength(replies.length);
    for (const record of drills) expect(record).toMatchObject({ actor: 'ops', counts: {} });
  });

  it('`above` at the cap moves the epoch by one, as a plain raise does', async () => {
    const before = await admin.store.epochs.read();

    const report = await raiseFences(admin, { above: MAX_FENCE_ABOVE, reason: 'drill at the cap', actor: 'ops' });

    expect(report).toMatchObject({ epoch: before + 1, floor: MAX_FENCE_ABOVE, complete: true });
  });

  it('`aboveEpoch` clears every fence of an epoch an earlier raise wrote (a restore to before that raise)', async () => {
    const before = await admin.store.epochs.read();

    const report = await raiseFences(admin, {
      aboveEpoch: before + 3,
      reason: 'restored to before a raise',
      actor: 'ops',
    });

    expect(report).toMatchObject({ epoch: before + 4, complete: true });
    expect(await admin.store.epochs.read()).toBe(before + 4);
  });

  it('no number of raises uses the epochs up: past the budget each is refused (409, audited, nothing changed) until time adds one', async () => {
    const identity = parseIdentity({ tenantId: 'cap', operationId: 'at-budget' });
    await harness.store.enqueue(
      parseNewWorkItem({
        identity,
        jobType: 'ledger',
        payloadHash: payloadHash({ cap: 2 }),
        payloadRef: 'ref-cap-2',
        maxAttempts: 5,
      }),
    );
    const budget = fenceEpochBudget(harness.clock.now());
    await admin.store.epochs.raise(budget - 2);
    const refusedBefore = (await refusals()).length;

    // act: ten plain raises in a row, then one whose record floor is a forged writer_epoch near 2^53
    const outcomes: Array<number | string> = [];
    for (let call = 0; call < 10; call += 1) {
      outcomes.push(
        await raiseFences(admin, { reason: `raise ${call}`, actor: 'ops' }).then(
          (report) => report.epoch,
          (error: { code: string }) => error.code,
        ),
      );
    }
    await recordBeforeRestore(parseIdentity({ tenantId: 'cap', operationId: 'forged' }), 9006099743113215);
    const forged = await raiseFences(admin, {
      recordTables: [recordsTable],
      reason: 'forged floor',
      actor: 'ops',
    }).catch((error: unknown) => error);

    // assert: two raises fit, the rest are refused with a typed error, nothing moved, each refusal audited
    expect(outcomes).toEqual([budget - 1, budget, ...Array(8).fill('transition.illegal')]);
    expect(forged).toMatchObject({
      code: 'transition.illegal',
      message: expect.stringMatching(/^fence epoch 8191 .* available from 2181-/),
    });
    expect(await admin.store.epochs.read()).toBe(budget);
    expect(await harness.store.get(identity)).toMatchObject({ fence: epochFloor(budget) });
    const refused = await refusals();
    expect(refused.length).toBe(refusedBefore + 9);
    expect(
      refused.filter((record) =>
        /^fence epoch 8191 is beyond the epoch budget.*reason given: forged floor$/.test(String(record.reason ?? '')),
      ),
    ).toHaveLength(1);

    // the way forward: a week later the budget has one more epoch
    harness.clock.advance(FENCE_EPOCH_ACCRUAL_MS);
    await harness.client.send(new DeleteCommand({ TableName: recordsTable, Key: recordKey('forged') }));
    const weekLater = await raiseFences(admin, { reason: 'a week later', actor: 'ops' });
    expect(weekLater).toMatchObject({ epoch: budget + 1, complete: true });
    expect(await harness.store.get(identity)).toMatchObject({ fence: epochFloor(budget + 1) });
  });
});
