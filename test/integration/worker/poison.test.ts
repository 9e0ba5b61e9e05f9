import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { toSqsEvent } from '../../../infra/local/sqs-event-source.js';
import { payloadHash } from '../../../lib/hashing.js';
import { parseIdentity } from '../../../lib/identity.js';
import { defineJob } from '../../../lib/job-definition.js';
import { queryParkedByState } from '../../support/store.js';
import { createWorkerHarness, type WorkerHarness } from '../../support/worker-harness.js';

let runs = 0;
const transfer = defineJob({
  type: 'transfer',
  version: 1,
  target: 'B',
  payload: z.strictObject({ amount: z.number().int().positive(), currency: z.enum(['EUR', 'USD']) }),
  run: async () => {
    runs += 1;
    return { outcomeCode: 'done' };
  },
});

const goodPayload = { amount: 10, currency: 'EUR' };
const goodHash = payloadHash(goodPayload);
const envelope = (overrides: Record<string, unknown>) =>
  JSON.stringify({
    v: 1,
    kind: 'job',
    tenantId: 'bank',
    operationId: 'op-x',
    jobType: 'transfer',
    payloadHash: goodHash,
    payload: { inline: true },
    ...overrides,
  });

/** Twenty kinds of bad message; the first group never names a usable identity, the rest fail later. */
const messageLevel: Array<[string, string]> = [
  ['bad JSON', '{"v":1,'],
  ['empty body', ''],
  ['JSON array', '[1,2,3]'],
  ['JSON null', 'null'],
  ['JSON number', '42'],
  ['missing version', JSON.stringify({ kind: 'job', tenantId: 'bank' })],
  ['wrong version', envelope({ v: 2 })],
  ['version as string', envelope({ v: '1' })],
  ['missing fields', JSON.stringify({ v: 1, kind: 'job' })],
  ['extra field', envelope({ payloadBody: { amount: 10 } })],
  ['wrong field types', envelope({ tenantId: 7 })],
  ['delimiter in operation id', envelope({ operationId: 'op#1' })],
  ['unicode trick in tenant', envelope({ tenantId: 'bank\u202e' })],
  ['huge body', envelope({ operationId: 'x'.repeat(200_000) })],
  ['non-hex hash', envelope({ payloadHash: 'z'.repeat(64) })],
  ['ref and inline together', envelope({ payload: { ref: 's3://b/k', inline: true } })],
  ['unknown job type', envelope({ jobType: 'teleport', operationId: 'op-unknown-type' })],
];

describe('poison messages', () => {
  let harness: WorkerHarness;
  beforeAll(async () => {
    harness = await createWorkerHarness('poison', [transfer]);
  });
  afterAll(async () => {
    await harness.close();
  });

  it('quarantines twenty kinds of bad input, keeps the batch going, and mutates no existing work row', async () => {
    // Prepare: one finished job whose row must not change, and payload bodies for item-level cases.
    await harness.send({ tenantId: 'bank', operationId: 'existing', jobType: 'transfer', payload: goodPayload });
    const worker = harness.worker();
    await harness.poll(worker);
    const existingBefore = await harness.store.get(parseIdentity({ tenantId: 'bank', operationId: 'existing' }));
    await harness.payloads.put(
      { tenantId: 'bank', operationId: 'schema-bad' },
      { amount: -1, currency: 'GBP' },
      payloadHash({ amount: -1, currency: 'GBP' }),
    );
    await harness.payloads.put(
      { tenantId: 'bank', operationId: 'hash-bad' },
      { amount: 11, currency: 'EUR' },
      goodHash,
    );
    const itemLevel: Array<[string, string]> = [
      [
        'payload conflicts with an existing row',
        envelope({ operationId: 'existing', payloadHash: payloadHash({ amount: 99, currency: 'USD' }) }),
      ],
      [
        'payload fails its schema',
        envelope({ operationId: 'schema-bad', payloadHash: payloadHash({ amount: -1, currency: 'GBP' }) }),
      ],
      ['stored body does not match its hash', envelope({ operationId: 'hash-bad' })],
      ['inline payload missing', envelope({ operationId: 'no-body' })],
    ];
    const cases = [...messageLevel, ...itemLevel];
    expect(cases.length).toBeGreaterThanOrEqual(20);
    const good = { MessageId: 'good-1', ReceiptHandle: 'r', Body: envelope({ operationId: 'good-1' }) };
    await harness.payloads.put({ tenantId: 'bank', operationId: 'good-1' }, goodPayload, goodHash);
    const messages = [
      ...cases.map(([name, body], index) => ({
        MessageId: `poison-${index}`,
        ReceiptHandle: `r${index}`,
        Body: body,
        name,
      })),
      good,
    ];
    runs = 0;

    const response = await worker(toSqsEvent(messages, 'arn:aws:sqs:us-east-1:000000000000:q'));

    expect(response.batchItemFailures).toEqual([]);
    expect(runs).toBe(1);
    expect(await harness.store.get(parseIdentity({ tenantId: 'bank', operationId: 'good-1' }))).toMatchObject({
      state: 'succeeded',
    });
    expect(await harness.store.get(parseIdentity({ tenantId: 'bank', operationId: 'existing' }))).toEqual(
      existingBefore,
    );
    const parked = await queryParkedByState(harness.client, harness.tables.jobsTable, 'quarantined');
    const quarantineRecords = parked.filter((item) => item.kind === 'quarantine');
    const quarantinedItems = parked.filter((item) => item.kind === 'work');
    // A payload that does not verify (missing, or not hashing to the message's hash) creates no row at all: the
    // message is quarantined, so nobody can bind an identity to a hash its producer never stored.
    expect(quarantineRecords).toHaveLength(messageLevel.length + 3);
    expect(quarantinedItems.map((item) => [item.operationId, item.errorCode]).sort()).toEqual([
      ['schema-bad', 'payload_schema'],
    ]);
    const reasons = new Set(quarantineRecords.map((record) => record.reason));
    expect(reasons).toEqual(
      new Set([
        'unparseable',
        'invalid_envelope',
        'unsupported_version',
        'unknown_job_type',
        'payload_conflict',
        'payload_hash_mismatch',
        'payload_missing',
      ]),
    );
    for (const record of quarantineRecords) {
      expect(record).toHaveProperty('bodySha256');
      expect(JSON.stringify(record)).not.toContain('x'.repeat(100));
      expect(record).not.toHaveProperty('body');
    }
    expect(worker.telemetry.counts.Quarantined).toBe(cases.length);
    // The per-type copy (its alert route): the four item-level cases of the registered type, never the body's
    // unregistered `teleport` (a message cannot mint a metric dimension).
    expect(worker.telemetry.byJobType).toEqual({ transfer: { Quarantined: itemLevel.length } });
    const all = await harness.client.send(new ScanCommand({ TableName: harness.tables.jobsTable }));
    const workRows = (all.Items ?? [])
      .filter((item) => item.kind === 'work')
      .map((item) => item.operationId)
      .sort();
    expect(workRows).toEqual(['existing', 'good-1', 'schema-bad']);
  });

  it('quarantine records and items quote nothing from the body: codes and schema paths only', async () => {
    const secret = 'alice.smith';
    const tagged = defineJob({
      type: 'tagged',
      version: 1,
      target: 'B',
      payload: z.strictObject({ tags: z.record(z.string(), z.number()) }),
      run: async () => ({ outcomeCode: 'done' }),
    });
    const local = await createWorkerHarness('poison-privacy', [tagged]);
    try {
      const badPayload = { tags: { [`${secret}@example.com`]: 'not a number' } };
      await local.payloads.put({ tenantId: 'bank', operationId: 'p-1' }, badPayload, payloadHash(badPayload));
      const bodies = [
        `${secret}@example.com`,
        envelope({ [`${secret}@example.com`]: true }),
        envelope({ v: secret }),
        envelope({ jobType: secret }),
        envelope({ kind: secret }),
        JSON.stringify({
          v: 1,
          kind: 'job',
          tenantId: 'bank',
          operationId: 'p-1',
          jobType: 'tagged',
          payloadHash: payloadHash(badPayload),
          payload: { inline: true },
        }),
      ];
      const worker = local.worker();
      const event = toSqsEvent(
        bodies.map((Body, index) => ({ MessageId: `privacy-${index}`, ReceiptHandle: `r${index}`, Body })),
        'arn:aws:sqs:us-east-1:000000000000:q',
      );

      const response = await worker(event);

      expect(response.batchItemFailures).toEqual([]);
      const rows = (await local.client.send(new ScanCommand({ TableName: local.tables.jobsTable }))).Items ?? [];
      expect(rows.filter((row) => row.kind === 'quarantine')).toHaveLength(bodies.length - 1);
      expect(rows.find((row) => row.operationId === 'p-1')).toMatchObject({
        state: 'quarantined',
        errorCode: 'payload_schema',
        errorMessage: 'payload failed its schema at tags.*: invalid_type',
      });
      expect(JSON.stringify(rows)).not.toContain(secret);
    } finally {
      await local.close();
    }
  });
});
