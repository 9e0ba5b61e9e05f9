import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toSqsEvent } from '../../infra/local/sqs-event-source.js';
import { defineJob } from '../../lib/job-definition.js';
import type { MessageResult } from '../../lib/worker/worker-runtime.js';
import { createWorkerHarness, type WorkerHarness } from '../support/worker-harness.js';
import { budget, runSeed } from './support/chaos-mode.js';
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
  skipped: ['missing', 'finished', 'leased', 'exhausted', 'not_due', 'replay_finished'],
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
