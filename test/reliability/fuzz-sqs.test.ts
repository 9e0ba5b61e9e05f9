import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toSqsEvent } from '../../infra/local/sqs-event-source.js';
import { InvalidInputError, isLeasefenceError } from '../../lib/errors.js';
import { canonicalJson } from '../../lib/hashing.js';
import { defineJob } from '../../lib/job-definition.js';
import { enqueueTransactItems } from '../../lib/messaging/outbox.js';
import { sendJob } from '../../lib/messaging/producer.js';
import type { MessageResult } from '../../lib/worker/worker-runtime.js';
import { createWorkerHarness, type WorkerHarness } from '../support/worker-harness.js';
import { budget, runSeed } from './support/chaos-mode.js';
import { hostileValue } from './support/fuzz/hostile-values.js';
import { type SeededRows, seedRowsInEveryState } from './support/fuzz/seeded-rows.js';
import { bodyArbitrary } from './support/fuzz/sqs-bodies.js';
import { ReliabilityReport } from './support/report.js';

const TENANT = 'fz';
const BATCH = 10;
/** Every status and reason the runtime may answer with; anything else (or a throw) is a crash. */
const ALLOWED: Record<string, readonly string[]> = {
  quarantined: [
    'unparseable',
    'unsupported_version',
    'invalid_envelope',
    'unknown_job_type',
    'payload_conflict',
    // A first message whose payload does not verify creates no row: it is quarantined as a message.
    'payload_missing',
    'payload_hash_mismatch',
    'payload_unreadable',
    // A body carried in the message above the payload cap.
    'payload_too_large',
  ],
  item_quarantined: ['payload_missing', 'payload_hash_mismatch', 'payload_schema', 'payload_unreadable'],
  // awaiting_approval: a seeded row waiting for a person; no message moves it.
  skipped: ['missing', 'finished', 'awaiting_approval', 'leased', 'exhausted', 'not_due', 'replay_finished'],
};
/** Identities a valid aimed envelope names (no payload exists for them: no row may be created, the message is quarantined). */
const FRESH = ['op#fz-fresh-a', 'op#fz-fresh-b'];

let runs = 0;
const job = (type: string) =>
  defineJob({
    type,
    version: 1,
    target: 'B',
    payload: z.strictObject({ order: z.string() }),
    run: async () => {
      runs += 1;
      return { outcomeCode: 'ran' };
    },
  });

/**
 * Generated SQS bodies — random text and JSON, envelopes with one field wrong (types, huge strings, control
 * characters, `#`, bidi and zero-width marks, lookalikes, lone surrogates), tampered text, and valid
 * envelopes aimed at existing rows — fed through the worker runtime and the Lambda handler in batches.
 */
describe('fuzzed SQS records through the worker', () => {
  const report = new ReliabilityReport(__filename);
  let harness: WorkerHarness;
  let seeded: SeededRows;

  beforeAll(async () => {
    harness = await createWorkerHarness('rel-fuzz-sqs', [job('demo'), job('other-type')]);
    seeded = await seedRowsInEveryState(harness.client, harness.tables.jobsTable, TENANT, harness.clock.now());
  });
  afterAll(async () => {
    await report.publish();
    await harness.close();
  });

  it(
    `never crashes on ${budget.sqsRecords} records, answers only with typed outcomes, and mutates no existing row`,
    async () => {
      const seed = runSeed();
      console.log(`[leasefence reliability] SQS fuzz seed ${seed} (replay: LEASEFENCE_SEED=${seed})`);
      const worker = harness.worker({ payloadResolver: async () => undefined });
      const before = await seeded.snapshot();
      const rowsBefore = await seeded.workRows();
      const tally: Record<string, number> = {};
      const crashes: string[] = [];
      let malformed = 0;
      let viaLambda = 0;

      for (let batch = 0; batch * BATCH < budget.sqsRecords; batch += 1) {
        const cases = fc.sample(bodyArbitrary(TENANT, seeded.operations), { seed: seed + batch, numRuns: BATCH });
        const messages = cases.map((generated, index) => ({ messageId: `fz-${batch}-${index}`, body: generated.body }));
        malformed += cases.filter((generated) => generated.malformed).length;
        if (batch % 10 === 9) {
          const event = toSqsEvent(
            messages.map((message) => ({ MessageId: message.messageId, ReceiptHandle: 'r', Body: message.body })),
            'arn:aws:sqs:us-east-1:000000000000:fuzz',
          );
          const response = await worker(event);
          viaLambda += messages.length;
          for (const failure of response.batchItemFailures) crashes.push(`lambda reported ${failure.itemIdentifier}`);
          continue;
        }
        const results = await Promise.all(
          messages.map((message) =>
            worker.runtime.handleMessage(message).catch((error: Error) => ({ status: 'threw', reason: error.name })),
          ),
        );
        for (const [index, result] of results.entries()) {
          const generated = cases[index];
          const reason = 'reason' in result ? String(result.reason) : '';
          tally[`${result.status}:${reason}`] = (tally[`${result.status}:${reason}`] ?? 0) + 1;
          const typed = ALLOWED[result.status]?.includes(reason) ?? false;
          const quarantinedAsMessage = result.status === 'quarantined';
          if (!typed || (generated?.malformed && !quarantinedAsMessage)) {
            crashes.push(
              `${generated?.category}: ${JSON.stringify(result as MessageResult)} for ${generated?.body.slice(0, 120)}`,
            );
          }
        }
      }

      const rowsAfter = await seeded.workRows();
      const created = rowsAfter.filter((row) => !rowsBefore.includes(row));
      report.add('badInputs', malformed);
      report.add('invariantViolations', crashes.length + (runs > 0 ? 1 : 0));
      console.log(
        `[leasefence reliability] SQS fuzz: ${budget.sqsRecords} records (${malformed} malformed, ${viaLambda} via the Lambda handler), outcomes ${JSON.stringify(tally)}`,
      );
      expect(crashes.slice(0, 5)).toEqual([]);
      expect(await seeded.snapshot()).toEqual(before);
      expect(created.every((row) => FRESH.includes(row))).toBe(true);
      expect(runs).toBe(0);
      // No carried body was ever stored: each was refused before the payloads table.
      const stored = await harness.client.send(new ScanCommand({ TableName: harness.tables.payloadsTable }));
      expect(stored.Items ?? []).toEqual([]);
    },
    budget.testTimeoutMs,
  );
});

/** Confirm-first sends and outbox items built from bad input: a typed error every time, nothing written or sent. */
describe('fuzzed producer input: confirm-first sends, carried bodies and outbox items', () => {
  const report = new ReliabilityReport(`${__filename}#producers`);
  let harness: WorkerHarness;

  beforeAll(async () => {
    harness = await createWorkerHarness('rel-fuzz-producers', [job('demo')]);
  });
  afterAll(async () => {
    await report.publish();
    await harness.close();
  });

  it('answers InvalidInputError for every bad field and mutates nothing', async () => {
    const seed = runSeed();
    const rows = { client: harness.client, jobsTable: harness.tables.jobsTable, jobs: [job('demo')] };
    const good = { tenantId: 'fz', operationId: 'fz-producer', jobType: 'demo', payload: { order: 'x' } };
    const field = fc.constantFrom('tenantId', 'operationId', 'jobType', 'jobVersion', 'payload');
    const path = fc.constantFrom('confirm', 'carry', 'outbox');
    const cases = fc.sample(fc.tuple(field, hostileValue, path), { seed, numRuns: 300 });
    const wrong: string[] = [];
    let refused = 0;
    for (const [name, value, way] of cases) {
      const input = { ...good, [name]: value } as typeof good;
      // Values that happen to be valid for the field are not bad input: the property is about the others.
      if (name === 'payload' && isJsonPayload(value)) continue;
      const attempt =
        way === 'outbox'
          ? enqueueTransactItems(
              { sqs: harness.sqs, queueUrl: harness.queueUrl, rows, payloadsTable: harness.tables.payloadsTable },
              input,
            )
          : sendJob(
              { sqs: harness.sqs, queueUrl: harness.queueUrl, payloads: harness.payloads, delayed: rows },
              way === 'carry' ? { ...input, carryBody: true } : { ...input, confirm: true },
            );
      const error = await attempt.then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      if (error === undefined) continue; // the hostile value was valid for that field after all
      refused += 1;
      if (!isLeasefenceError(error, InvalidInputError)) wrong.push(`${name}: ${String(error)}`);
    }
    const scan = async (table: string) =>
      (await harness.client.send(new ScanCommand({ TableName: table }))).Items ?? [];
    const jobsRows = (await scan(harness.tables.jobsTable)).filter((item) => item.kind === 'work');
    report.add('badInputs', refused);
    report.add('invariantViolations', wrong.length);

    expect(wrong.slice(0, 5)).toEqual([]);
    expect(refused).toBeGreaterThan(100);
    // Only a send whose every field happened to be valid may have written (the good identity), never another.
    expect(jobsRows.every((row) => row.operationId === good.operationId)).toBe(true);
  });
});

/** True when `value` has a canonical JSON form (so it is a valid payload, not bad input). */
function isJsonPayload(value: unknown): boolean {
  try {
    canonicalJson(value);
    return true;
  } catch {
    return false;
  }
}
