import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { LambdaFunctionURLResult } from 'aws-lambda';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { handleAdminRequest } from '../../../lib/admin/router.js';
import { EnvironmentVariable } from '../../../lib/config.js';
import { DEVELOPMENT_IDENTIFIER_KEY, hashIdentifier } from '../../../lib/hashing.js';
import { WorkState } from '../../../lib/states.js';
import { OperatorStore } from '../../../lib/store/operator/operator-store.js';
import {
  createTestQueue,
  createTestTables,
  engineEndpoints,
  type TestTables,
  testSqsClient,
} from '../../support/engine.js';
import { newIdentity, putWorkItem } from '../../support/factories.js';
import { functionUrlEvent, TEST_CALLER_ARN, type UrlRequest } from '../../support/function-url-event.js';
import { drainQueue } from '../../support/queue-reader.js';
import { type StoreFixture, storeFixture } from '../../support/store.js';

type Handler = typeof import('../../../functions/admin.js')['handler'];

/** The JSON body of a Function URL answer. */
function bodyOf(result: LambdaFunctionURLResult): Record<string, unknown> {
  if (typeof result === 'string') throw new Error('expected a structured result');
  return JSON.parse(String(result.body)) as Record<string, unknown>;
}

function statusOf(result: LambdaFunctionURLResult): number | undefined {
  return typeof result === 'string' ? undefined : result.statusCode;
}

describe('functions/admin.ts behind a Function URL with AWS_IAM auth', () => {
  let tables: TestTables;
  let sqs: SQSClient;
  let queueUrl: string;
  let dlqUrl: string;
  let fixture: StoreFixture;
  let handler: Handler;
  let logged: string[];

  /** Invokes the handler, capturing what it writes to stdout (the Powertools logger). */
  async function invoke(request: UrlRequest): Promise<LambdaFunctionURLResult> {
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      logged.push(String(chunk));
      return true;
    });
    try {
      return await handler(functionUrlEvent(request));
    } finally {
      write.mockRestore();
    }
  }

  beforeAll(async () => {
    tables = await createTestTables('admin-handler');
    sqs = testSqsClient();
    ({ queueUrl, dlqUrl } = await createTestQueue(sqs, 'admin-handler'));
    fixture = storeFixture(tables.jobsTable);
    const { dynamo, sqs: sqsEndpoint } = engineEndpoints();
    vi.stubEnv(EnvironmentVariable.jobsTable, tables.jobsTable);
    vi.stubEnv(EnvironmentVariable.payloadsTable, tables.payloadsTable);
    vi.stubEnv(EnvironmentVariable.queueUrl, queueUrl);
    vi.stubEnv(EnvironmentVariable.deadLetterQueueUrl, dlqUrl);
    vi.stubEnv(EnvironmentVariable.dynamodbEndpoint, dynamo);
    vi.stubEnv(EnvironmentVariable.sqsEndpoint, sqsEndpoint);
    ({ handler } = await import('../../../functions/admin.js'));
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await tables.drop();
    sqs.destroy();
  });

  it('resolves an item whose operation id contains "/", records the IAM caller as actor, logs only hashes', async () => {
    // Prepare
    logged = [];
    const identity = { tenantId: 'tenant-url', operationId: 'statement/acct-9/2026-01-31' };
    await putWorkItem(fixture.client, tables.jobsTable, { identity, state: WorkState.unknown });

    // Act
    const listed = await invoke({ method: 'GET', path: '/items', query: { state: 'unknown', tenant: 'tenant-url' } });
    const resolved = await invoke({
      method: 'POST',
      path: `/items/tenant-url/${identity.operationId}/resolve`,
      body: { to: 'succeeded', reason: 'statement found in the archive' },
      base64: true,
    });
    const shown = await invoke({ method: 'GET', path: `/items/tenant-url/${identity.operationId}` });

    // Assert
    expect(statusOf(listed)).toBe(200);
    expect(typeof listed !== 'string' && listed.headers?.['content-type']).toBe('application/json');
    expect(bodyOf(listed).items).toEqual([expect.objectContaining({ operationId: identity.operationId })]);
    expect(statusOf(resolved)).toBe(200);
    expect(bodyOf(shown).item).toMatchObject({
      state: 'succeeded',
      audit: [expect.objectContaining({ actor: TEST_CALLER_ARN, action: 'resolve_succeeded' })],
    });
    const logText = logged.join('');
    // No key secret is configured here: the development key (a deployment reads its own from Secrets Manager).
    expect(logText).toContain(hashIdentifier('tenant-url', DEVELOPMENT_IDENTIFIER_KEY));
    expect(logText).not.toContain('tenant-url');
    expect(logText).not.toContain('acct-9');
    expect(logText).not.toContain('ops-alice');
  });

  it('a refused approval is logged with its refusal code beside the route and status (no identifier in the clear)', async () => {
    // Prepare: a job awaiting approval whose window closed an hour ago (the sweeper has not run).
    logged = [];
    const identity = { tenantId: 'tenant-late', operationId: 'refund-late' };
    const row = await putWorkItem(fixture.client, tables.jobsTable, {
      identity,
      state: WorkState.awaiting_approval,
      now: Date.now() - 2 * 3_600_000,
    });

    // Act
    const refused = await invoke({
      method: 'POST',
      path: '/items/tenant-late/refund-late/approve',
      body: { reason: 'late', payloadHash: row.payloadHash },
    });

    // Assert
    expect(statusOf(refused)).toBe(409);
    expect(bodyOf(refused)).toMatchObject({ error: 'approval_refused', refusal: 'approval_expired' });
    const line = logged.map((chunk) => JSON.parse(chunk) as Record<string, unknown>).at(-1);
    expect(line).toMatchObject({
      message: 'admin request',
      route: 'POST /items/{tenantId}/{operationId}/approve',
      statusCode: 409,
      refusal: 'approval_expired',
    });
    expect(logged.join('')).not.toContain('tenant-late');
  });

  it('answers 403 without an IAM caller and never takes the actor from the body', async () => {
    // Prepare
    const identity = newIdentity('tenant-auth');
    await putWorkItem(fixture.client, tables.jobsTable, { identity, state: WorkState.queued });
    const path = `/items/${identity.tenantId}/${identity.operationId}/cancel`;

    // Act
    const anonymous = await invoke({ method: 'POST', path, body: { reason: 'x' }, callerArn: null });
    const smuggled = await invoke({
      method: 'POST',
      path,
      body: { reason: 'x', actor: 'arn:aws:iam::1:user/mallory' },
    });

    // Assert
    expect(statusOf(anonymous)).toBe(403);
    expect(statusOf(smuggled)).toBe(400);
    expect(JSON.stringify(bodyOf(smuggled))).toContain('actor');
    expect((await fixture.store.get(identity))?.state).toBe(WorkState.queued);
  });

  it('maps errors to 404, 405, 409 and 400 with the field named', async () => {
    // Prepare
    const done = newIdentity('tenant-errors');
    await putWorkItem(fixture.client, tables.jobsTable, { identity: done, state: WorkState.succeeded });

    // Act
    const missingItem = await invoke({ method: 'GET', path: '/items/tenant-errors/nope' });
    const missingRoute = await invoke({ method: 'GET', path: '/jobs' });
    const wrongMethod = await invoke({ method: 'DELETE', path: '/items' });
    const illegal = await invoke({
      method: 'POST',
      path: `/items/tenant-errors/${done.operationId}/cancel`,
      body: { reason: 'x' },
    });
    const badLimit = await invoke({ method: 'GET', path: '/items', query: { state: 'unknown', limit: 'ten' } });

    // Assert
    expect([missingItem, missingRoute, wrongMethod, illegal, badLimit].map(statusOf)).toEqual([
      404, 404, 405, 409, 400,
    ]);
    expect(bodyOf(badLimit).issues).toEqual([expect.objectContaining({ path: 'limit' })]);
  });

  it('a malformed rawPath is a 400 before routing: `//health` is not `/health`', async () => {
    // Act
    const answers: Record<string, number | undefined> = {};
    for (const path of ['//health', '///health', '//x/health', '/health/', '/items//x', '/items/a%2Fb', '/./health']) {
      answers[path] = statusOf(await invoke({ method: 'GET', path }));
    }
    const plain = await invoke({ method: 'GET', path: '/health' });

    // Assert
    expect(answers).toEqual({
      '//health': 400,
      '///health': 400,
      '//x/health': 400,
      '/health/': 400,
      '/items//x': 400,
      '/items/a%2Fb': 400,
      '/./health': 400,
    });
    expect(statusOf(plain)).toBe(200);
  });

  it('fuzzed rawPaths: 0 answers are 500, and every malformed one (built from a real route) is a 400', async () => {
    // Prepare: malformed paths built from real routes, so each would reach one if read leniently.
    const routes = [
      '/health',
      '/items',
      '/items/fz/op-1',
      '/items/fz/op-1/cancel',
      '/dlq/redrive',
      '/audit',
      '/counts',
    ];
    const segment = fc.stringMatching(/^[A-Za-z0-9._~-]{1,8}$/);
    const malformed = fc
      .tuple(fc.constantFrom(...routes), segment, fc.nat({ max: 3 }))
      .chain(([route, extra, slashes]) =>
        fc.constantFrom(
          `/${'/'.repeat(slashes)}${route}`,
          `//${extra}${route}`,
          route.slice(1),
          `${route}/`,
          `${route}//${extra}`,
          `/${extra}/..${route}`,
          `${route}/.`,
          `${route}/%2e%2E`,
          `${route}%2F${extra}`,
          `${route}%5c${extra}`,
          `${route}\\${extra}`,
          '',
        ),
      );
    const statuses = new Map<number | undefined, number>();
    const wrong: string[] = [];

    // Act: malformed paths with any method; any string at all with GET (never a change)
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'PUT', 'DELETE') as fc.Arbitrary<'GET'>,
        malformed,
        async (method, path) => {
          const status = statusOf(await invoke({ method, path, body: { reason: 'fuzz' } }));
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
          if (status !== 400) wrong.push(`${method} ${path} ▶ ${status}`);
        },
      ),
      { numRuns: 150, seed: 44 },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: 'grapheme', maxLength: 20 })),
        async (path) => {
          const status = statusOf(await invoke({ method: 'GET', path }));
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
          if (status === undefined || status >= 500) wrong.push(`GET ${JSON.stringify(path)} ▶ ${status}`);
        },
      ),
      { numRuns: 150, seed: 39 },
    );

    // Assert
    expect(wrong).toEqual([]);
    expect(statuses.get(500) ?? 0).toBe(0);
  });

  it('redrives the configured DLQ', async () => {
    // Prepare
    for (const body of ['{"v":1}', 'plain text']) {
      await sqs.send(new SendMessageCommand({ QueueUrl: dlqUrl, MessageBody: body }));
    }

    // Act
    const reply = await invoke({ method: 'POST', path: '/dlq/redrive', body: { max: 2 } });

    // Assert
    expect(bodyOf(reply)).toMatchObject({ received: 2, moved: 2, movedInvalid: 2 });
    expect(await drainQueue(sqs, queueUrl)).toHaveLength(2);
  });

  it('answers 500 without internals when the storage fails (pure router, missing table)', async () => {
    // Prepare
    const store = new OperatorStore({ client: fixture.client, tableName: 'no-such-table-xyz' });
    const deps = { store, sqs, queueUrl, payloadsTable: 'no-such-payloads' };

    // Act
    const reply = await handleAdminRequest(
      { method: 'GET', path: '/items', query: { state: 'unknown' }, actor: TEST_CALLER_ARN },
      deps,
    );

    // Assert
    expect(reply.statusCode).toBe(500);
    expect(reply.body).toEqual({ error: 'internal', message: 'internal error; see the function logs' });
    expect(reply.error).toBeInstanceOf(Error);
  });
});
