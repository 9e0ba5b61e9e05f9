import { describe, expect, it } from 'vitest';
import { readConfig } from '../../lib/config.js';
import { InvalidInputError } from '../../lib/errors.js';
import { operationIdSchema, tenantIdSchema } from '../../lib/identity.js';
import {
  capMessage,
  isWriterAttribute,
  jobOutcomeSchema,
  jobTypeSchema,
  jobVersionSchema,
  MAX_MESSAGE_CHARS,
  MAX_RESULT_BYTES,
  outcomeCodeSchema,
  queueUrlSchema,
  RetentionDays,
  recordedResultSchema,
  stepNameSchema,
  tableNameSchema,
  WRITER_ATTRIBUTES,
  WriterAttribute,
} from '../../lib/rules.js';

/** Each rule once, at its boundary: the longest accepted, one past it, and the characters it refuses. */
describe('one home per rule', () => {
  it.each<[string, { safeParse: (value: unknown) => { success: boolean } }, unknown[], unknown[]]>([
    [
      'tenant id',
      tenantIdSchema,
      ['a', 'A'.repeat(64), 'acme.eu_1-2'],
      ['', 'a'.repeat(65), '-acme', 'a#b', 'a/b', 'a b'],
    ],
    [
      'operation id',
      operationIdSchema,
      ['o', 'o'.repeat(256), 'refund:42/a=b+c@d'],
      ['', 'o'.repeat(257), '.op', 'a#b', 'a b'],
    ],
    [
      'job type',
      jobTypeSchema,
      ['r', 'r'.repeat(64), 'refund.v2_x-y'],
      ['', 'r'.repeat(65), '.refund', 'refund:v2', 'a b'],
    ],
    [
      'table name',
      tableNameSchema,
      ['abc', 't'.repeat(255), 'my.jobs_table-1'],
      ['ab', 't'.repeat(256), 'jobs table', 'jobs:1', 'jobs/1'],
    ],
    [
      'outcome code',
      outcomeCodeSchema,
      ['x', 'x'.repeat(64), 'refund.sent:ok_1-2'],
      ['', 'x'.repeat(65), ':sent', 'sent ok', 'sent/ok'],
    ],
    [
      'step name',
      stepNameSchema,
      ['s', 's'.repeat(64), 'charge.card', 'reserve:1_a-b', '.x'],
      ['', 's'.repeat(65), 'notify customer', 'a/b', 'a#b'],
    ],
    ['job version', jobVersionSchema, [1, 1_000_000], [0, 1_000_001, 1.5, '1']],
    [
      'queue URL',
      queueUrlSchema,
      ['https://sqs.eu-west-1.amazonaws.com/123/jobs', 'http://sqs.us-east-1.127.0.0.1:4566/000000000000/q'],
      ['sqs://host/q', 'https://host', 'https://host/ q', ''],
    ],
  ])('%s: accepts the boundary, refuses one past it', (_rule, schema, accepted, refused) => {
    for (const value of accepted) expect(schema.safeParse(value).success, String(value)).toBe(true);
    for (const value of refused) expect(schema.safeParse(value).success, String(value)).toBe(false);
  });

  it('a recorded result is capped in UTF-8 bytes of its JSON, not in characters', () => {
    // A JSON string of n ASCII chars is n + 2 bytes (the quotes).
    expect(recordedResultSchema.safeParse('a'.repeat(MAX_RESULT_BYTES - 2)).success).toBe(true);
    expect(recordedResultSchema.safeParse('a'.repeat(MAX_RESULT_BYTES - 1)).success).toBe(false);
    // '€' is one character but three bytes: far fewer characters than the cap, still too many bytes.
    const euros = Math.floor((MAX_RESULT_BYTES - 2) / 3);
    expect(recordedResultSchema.safeParse('€'.repeat(euros)).success).toBe(true);
    expect(recordedResultSchema.safeParse('€'.repeat(euros + 1)).success).toBe(false);
    expect(MAX_RESULT_BYTES).toBe(16 * 1024);
  });

  it('a recorded result is absent or JSON', () => {
    expect(recordedResultSchema.safeParse(undefined).success).toBe(true);
    expect(recordedResultSchema.safeParse({ a: [1, null, 'x'] }).success).toBe(true);
    expect(recordedResultSchema.safeParse(Number.NaN).success).toBe(false);
    expect(recordedResultSchema.safeParse({ at: new Date(0) }).success).toBe(false);
  });

  it('a job outcome is an outcome code and a capped result, nothing else', () => {
    expect(jobOutcomeSchema.safeParse({ outcomeCode: 'sent', result: { id: 1 } }).success).toBe(true);
    expect(jobOutcomeSchema.safeParse({ outcomeCode: 'sent' }).success).toBe(true);
    expect(jobOutcomeSchema.safeParse({ outcomeCode: 'sent', result: 'a'.repeat(MAX_RESULT_BYTES) }).success).toBe(
      false,
    );
    expect(jobOutcomeSchema.safeParse({ outcomeCode: 'sent', payload: {} }).success).toBe(false);
    expect(jobOutcomeSchema.safeParse({ outcomeCode: 'sent ok' }).success).toBe(false);
  });

  it('the writer attributes are the four the fence keeps, and only those', () => {
    expect(Object.values(WriterAttribute)).toEqual(['writer_epoch', 'writer_seq', 'writer_token', 'writer_op']);
    expect(WRITER_ATTRIBUTES).toEqual(Object.values(WriterAttribute));
    for (const name of WRITER_ATTRIBUTES) expect(isWriterAttribute(name)).toBe(true);
    expect(isWriterAttribute('writer')).toBe(false);
    expect(isWriterAttribute('status')).toBe(false);
  });

  it('a stored failure message is cut at MAX_MESSAGE_CHARS, shorter text kept as it is', () => {
    expect(MAX_MESSAGE_CHARS).toBe(500);
    expect(capMessage('m'.repeat(MAX_MESSAGE_CHARS))).toBe('m'.repeat(MAX_MESSAGE_CHARS));
    expect(capMessage(`${'m'.repeat(MAX_MESSAGE_CHARS)}overflow`)).toBe('m'.repeat(MAX_MESSAGE_CHARS));
    expect(capMessage('')).toBe('');
  });

  it('retention: the environment defaults to RetentionDays.default and refuses a value outside its range', () => {
    const env = { LEASEFENCE_JOBS_TABLE: 'jobs', LEASEFENCE_PAYLOADS_TABLE: 'payloads' };
    expect(RetentionDays).toEqual({ default: 30, min: 1, max: 3650 });
    expect(readConfig(env).payloadRetentionDays).toBe(RetentionDays.default);
    expect(
      readConfig({ ...env, LEASEFENCE_PAYLOAD_RETENTION_DAYS: String(RetentionDays.max) }).payloadRetentionDays,
    ).toBe(RetentionDays.max);
    for (const days of [RetentionDays.min - 1, RetentionDays.max + 1]) {
      expect(() => readConfig({ ...env, LEASEFENCE_PAYLOAD_RETENTION_DAYS: String(days) })).toThrow(InvalidInputError);
    }
  });

  it("the worker's run bound: unset stays unset (the admin then waits 15 minutes), an integer of ms is read, anything else refused", () => {
    const env = { LEASEFENCE_JOBS_TABLE: 'jobs', LEASEFENCE_PAYLOADS_TABLE: 'payloads' };
    expect(readConfig(env).workerMaxRunMs).toBeUndefined();
    expect(readConfig({ ...env, LEASEFENCE_WORKER_MAX_RUN_MS: '90000' }).workerMaxRunMs).toBe(90_000);
    for (const value of ['-1', '1.5', 'ten']) {
      expect(() => readConfig({ ...env, LEASEFENCE_WORKER_MAX_RUN_MS: value })).toThrow(InvalidInputError);
    }
  });

  it('every optional variable is checked when set (refused naming its field) and absent when unset (issue #46: only a set one builds its schema)', () => {
    const env = { LEASEFENCE_JOBS_TABLE: 'jobs', LEASEFENCE_PAYLOADS_TABLE: 'payloads' };
    const bad: Record<string, [string, string]> = {
      queueUrl: ['LEASEFENCE_QUEUE_URL', 'not a url'],
      bulkQueueUrl: ['LEASEFENCE_BULK_QUEUE_URL', 'not a url'],
      deadLetterQueueUrl: ['LEASEFENCE_DLQ_URL', 'not a url'],
      dynamodbEndpoint: ['LEASEFENCE_DYNAMODB_ENDPOINT', 'not a url'],
      sqsEndpoint: ['LEASEFENCE_SQS_ENDPOINT', 'not a url'],
      disabledJobTypes: ['LEASEFENCE_DISABLED_JOB_TYPES', 'ok,bad type'],
      identifierKeySecretArn: ['LEASEFENCE_IDENTIFIER_KEY_SECRET_ARN', 'arn:aws:s3:::bucket'],
      faultPlanSecretArn: ['LEASEFENCE_FAULT_PLAN_SECRET_ARN', 'arn:aws:s3:::bucket'],
      adminRoutePrincipals: ['LEASEFENCE_ADMIN_ROUTE_PRINCIPALS', '{not json'],
      senderTenants: ['LEASEFENCE_SENDER_TENANTS', '{not json'],
      inlinePayloads: ['LEASEFENCE_INLINE_PAYLOADS', 'sometimes'],
      workerMaxRunMs: ['LEASEFENCE_WORKER_MAX_RUN_MS', 'ten'],
    };
    const unset = readConfig(env);
    for (const [field, [variable, value]] of Object.entries(bad)) {
      expect(field in unset).toBe(false);
      expect(() => readConfig({ ...env, [variable]: value })).toThrow(new RegExp(`: ${field}[.:]`));
    }
  });
});
