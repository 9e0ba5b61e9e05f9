import { CreateTableCommand, DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { examplesTableDefinition } from '../../../examples/jobs/examples-table.js';
import { statementPublicationJob, statementRecordKey } from '../../../examples/jobs/statement-publication.js';
import { parseIdentity } from '../../../lib/identity.js';
import { defineJob } from '../../../lib/job-definition.js';
import { parkedStateKey } from '../../../lib/store/parked/parked-keys.js';
import { tenantBucketOf } from '../../../lib/store/table.js';
import { testDocumentClient, uniqueName } from '../../support/engine.js';
import { createWorkerHarness, type WorkerHarness } from '../../support/worker-harness.js';

const recordsTable = uniqueName('refusal-records');
let runs = 0;

/** A class B job whose own writes are wrong in the way `mistake` names. */
const buggy = defineJob({
  type: 'buggy',
  version: 1,
  target: 'B',
  maxAttempts: 3,
  payload: z.strictObject({ mistake: z.enum(['write_twice', 'sequence_repeated', 'confirm_unstamped']) }),
  run: async (ctx) => {
    runs += 1;
    const ref = { tableName: recordsTable, key: { pk: `rec#${ctx.identity.operationId}`, sk: 'r' } };
    if (ctx.payload.mistake === 'write_twice') {
      await ctx.records.write(ref, { set: { step: 1 } });
      await ctx.records.write(ref, { set: { step: 2 } });
    } else if (ctx.payload.mistake === 'sequence_repeated') {
      await ctx.records.writeInSequence(ref, 1, { set: { step: 1 } });
      await ctx.records.writeInSequence(ref, 1, { set: { step: 2 } });
    } else {
      await ctx.records.confirm(ref, { set: { status: 'sent' } });
    }
    return { outcomeCode: 'done' };
  },
});

describe('fence refusals are classified: only a newer claim is lost ownership', () => {
  let harness: WorkerHarness;
  beforeAll(async () => {
    const client = testDocumentClient();
    await client.send(new CreateTableCommand(examplesTableDefinition(recordsTable)));
    client.destroy();
    harness = await createWorkerHarness('refusal', [buggy, statementPublicationJob(recordsTable)]);
  });
  afterAll(async () => {
    await harness.client.send(new DeleteTableCommand({ TableName: recordsTable }));
    await harness.close();
  });

  it.each([
    ['write_twice', 'fence_same_claim_already_wrote'],
    ['sequence_repeated', 'fence_sequence_not_newer'],
    ['confirm_unstamped', 'fence_not_stamped_by_claim'],
  ])(
    '%s ends the attempt failed_terminal with %s at once, not ownership_lost, and is not run again',
    async (mistake, errorCode) => {
      const identity = parseIdentity({ tenantId: 'acme', operationId: `bug-${mistake}` });
      runs = 0;
      await harness.send({ ...identity, jobType: 'buggy', payload: { mistake } });
      const worker = harness.worker();

      const round = await harness.poll(worker);
      await harness.send({ ...identity, jobType: 'buggy', payload: { mistake } });
      await harness.poll(worker);

      expect(round).toMatchObject({ received: 1, deleted: 1, failed: 0 });
      expect(runs).toBe(1);
      expect(await harness.store.get(identity)).toMatchObject({
        state: 'failed_terminal',
        errorCode,
        attempts: 1,
        parkedState: parkedStateKey('failed_terminal', tenantBucketOf(identity)),
      });
      expect(worker.telemetry.counts).toMatchObject({ FenceRefusedByJob: 1, FailedTerminal: 1 });
      expect(worker.telemetry.counts.OwnershipLost ?? 0).toBe(0);
    },
  );

  it('statement example: two operations publishing the same account and date both succeed, each with its own pointer', async () => {
    const payload = { accountId: '42', date: '2026-09-13', lines: 3 };
    const first = parseIdentity({ tenantId: 'bank-eu', operationId: 'stmt-42-2026-09-13' });
    const correction = parseIdentity({ tenantId: 'bank-eu', operationId: 'stmt-42-2026-09-13-correction' });
    await harness.send({ ...first, jobType: 'statement-publication', payload });
    await harness.send({ ...correction, jobType: 'statement-publication', payload: { ...payload, lines: 4 } });

    const worker = harness.worker();
    await harness.poll(worker);
    await harness.poll(worker);

    for (const identity of [first, correction]) {
      expect(await harness.store.get(identity)).toMatchObject({
        state: 'succeeded',
        outcomeCode: 'published',
      });
      const records = await harness.client.send(
        new QueryCommand({
          TableName: recordsTable,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': statementRecordKey(identity) },
        }),
      );
      expect(records.Items?.find((item) => item.sk === 'pointer')).toMatchObject({ accountId: '42', writer_epoch: 1 });
    }
  });
});
