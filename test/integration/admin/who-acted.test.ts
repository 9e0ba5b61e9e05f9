import type { SQSClient } from '@aws-sdk/client-sqs';
import type { LambdaFunctionURLResult } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAuditRecords } from '../../../lib/admin/audit.js';
import { handleAdminRequest } from '../../../lib/admin/router.js';
import { systemClock } from '../../../lib/clock.js';
import type { LeasefenceConfig } from '../../../lib/config.js';
import { DEVELOPMENT_IDENTIFIER_KEY, hashIdentifier, payloadHash } from '../../../lib/hashing.js';
import { type AdminHandler, createAdminHandler } from '../../../lib/lambda/admin-handler.js';
import { WorkState } from '../../../lib/states.js';
import { PayloadStore } from '../../../lib/store/index.js';
import {
  createTestQueue,
  createTestTables,
  engineEndpoints,
  type TestTables,
  testSqsClient,
} from '../../support/engine.js';
import { newIdentity, putWorkItem } from '../../support/factories.js';
import { functionUrlEvent, TEST_CALLER_ARN, type UrlRequest } from '../../support/function-url-event.js';
import { type StoreFixture, storeFixture } from '../../support/store.js';

/** What the Function URL put in the test events beside the caller's ARN (test/support/function-url-event.ts). */
const TEST_CALLER = { accountId: '123456789012', userId: 'AIDAEXAMPLECALLER000', accessKeyId: 'ASIAEXAMPLEKEY000000' };

const PRIVACY_ROLE = 'arn:aws:iam::123456789012:role/team/Privacy';
const RECOVERY_ROLE_ID = 'AROARECOVERYROLE0000';

function reply(result: LambdaFunctionURLResult): { status: number | undefined; body: Record<string, unknown> } {
  if (typeof result === 'string') throw new Error('expected a structured result');
  return { status: result.statusCode, body: JSON.parse(String(result.body)) as Record<string, unknown> };
}

describe('the audit names who really acted, and routes can be limited to their principals', () => {
  let tables: TestTables;
  let sqs: SQSClient;
  let fixture: StoreFixture;
  let config: LeasefenceConfig;
  let open: AdminHandler;
  let restricted: AdminHandler;

  beforeAll(async () => {
    tables = await createTestTables('who-acted');
    sqs = testSqsClient();
    const { queueUrl, dlqUrl } = await createTestQueue(sqs, 'who-acted');
    fixture = storeFixture(tables.jobsTable);
    const { dynamo, sqs: sqsEndpoint } = engineEndpoints();
    config = {
      jobsTable: tables.jobsTable,
      payloadsTable: tables.payloadsTable,
      queueUrl,
      deadLetterQueueUrl: dlqUrl,
      deadlineShards: 32,
      payloadRetentionDays: 30,
      dynamodbEndpoint: dynamo,
      sqsEndpoint,
    };
    open = createAdminHandler({ config });
    restricted = createAdminHandler({
      config: {
        ...config,
        adminRoutePrincipals: {
          erasePayloads: [PRIVACY_ROLE],
          raiseFences: [RECOVERY_ROLE_ID],
          resolveItem: [TEST_CALLER_ARN],
        },
      },
    });
  });
  afterAll(async () => {
    await tables.drop();
    sqs.destroy();
  });

  const call = async (handler: AdminHandler, request: UrlRequest) => reply(await handler(functionUrlEvent(request)));
  const auditCount = async () =>
    (
      await listAuditRecords(
        { store: fixture.store, sqs, queueUrl: config.queueUrl ?? '', payloadsTable: '' },
        { limit: 100 },
      )
    ).records.length;

  it("records the caller's account, user id and access key id beside the ARN, on the item and in the audit log", async () => {
    const identity = newIdentity('tenant-who');
    await putWorkItem(fixture.client, tables.jobsTable, { identity, state: WorkState.queued });

    const cancelled = await call(open, {
      method: 'POST',
      path: `/items/${identity.tenantId}/${identity.operationId}/cancel`,
      body: { reason: 'customer withdrew' },
    });
    const redriven = await call(open, { method: 'POST', path: '/dlq/redrive', body: {} });
    const audit = await call(open, { method: 'GET', path: '/audit', query: { limit: '1' } });

    expect(cancelled.status).toBe(200);
    expect((await fixture.store.get(identity))?.audit).toEqual([
      expect.objectContaining({ action: 'cancel', actor: TEST_CALLER_ARN, caller: TEST_CALLER }),
    ]);
    expect(redriven.status).toBe(200);
    expect(audit.body.records).toEqual([
      expect.objectContaining({ action: 'redrive', actor: TEST_CALLER_ARN, caller: TEST_CALLER }),
    ]);
  });

  it('an assumed-role session is recorded with its role id, whatever session name it chose', async () => {
    const identity = newIdentity('tenant-who');
    await putWorkItem(fixture.client, tables.jobsTable, { identity, state: WorkState.queued });

    await call(open, {
      method: 'POST',
      path: `/items/${identity.tenantId}/${identity.operationId}/cancel`,
      body: { reason: 'x' },
      callerArn: 'arn:aws:sts::123456789012:assumed-role/Deploy/ops-alice',
      userId: 'AROADEPLOYROLE000000:ops-alice',
    });

    expect((await fixture.store.get(identity))?.audit?.at(-1)).toMatchObject({
      actor: 'arn:aws:sts::123456789012:assumed-role/Deploy/ops-alice',
      caller: { userId: 'AROADEPLOYROLE000000:ops-alice', accessKeyId: 'ASIAEXAMPLEKEY000000' },
    });
  });

  it('erase, raise-fences and resolve answer only their allowlisted principals; nothing is done or audited otherwise', async () => {
    const parked = newIdentity('tenant-guarded');
    await putWorkItem(fixture.client, tables.jobsTable, { identity: parked, state: WorkState.unknown });
    const before = await fixture.store.get(parked);
    const audits = await auditCount();
    const erase = {
      method: 'POST',
      path: '/tenants/tenant-guarded/erase-payloads',
      body: { reason: 'GDPR 9' },
    } as const;
    const raise = { method: 'POST', path: '/fences/raise', body: { above: 10, reason: 'restore drill' } } as const;
    const resolve = {
      method: 'POST',
      path: `/items/${parked.tenantId}/${parked.operationId}/resolve`,
      body: { to: 'succeeded', reason: 'found in the ledger' },
    } as const;
    const privacySession = {
      callerArn: 'arn:aws:sts::123456789012:assumed-role/Privacy/anyone',
      userId: 'AROAPRIVACYROLE00000:anyone',
    };
    const impostor = {
      // A session of another role that named itself after the privacy role.
      callerArn: 'arn:aws:sts::123456789012:assumed-role/Ops/Privacy',
      userId: 'AROAOPSROLE000000000:Privacy',
    };

    const refused = [
      await call(restricted, erase),
      await call(restricted, { ...erase, ...impostor }),
      await call(restricted, { ...raise, ...privacySession }),
      await call(restricted, { ...resolve, ...privacySession }),
    ];
    const refusedAudits = await auditCount();
    const unchanged = await fixture.store.get(parked);
    const allowed = [
      await call(restricted, { ...erase, ...privacySession }),
      await call(restricted, {
        ...raise,
        callerArn: 'arn:aws:sts::123456789012:assumed-role/Recovery/x',
        userId: `${RECOVERY_ROLE_ID}:x`,
      }),
      await call(restricted, resolve),
      await call(restricted, { method: 'GET', path: '/counts', ...impostor }),
    ];

    expect(refused.map((answer) => answer.status)).toEqual([403, 403, 403, 403]);
    expect(refused[0]?.body).toMatchObject({ error: 'forbidden' });
    expect(refusedAudits).toBe(audits);
    expect(unchanged).toEqual(before);
    expect(allowed.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    expect((await fixture.store.get(parked))?.state).toBe(WorkState.succeeded);
  });

  it("the approver's payload read answers only approveItem's principals, returns the verified body and is audited", async () => {
    // prepare: approvals limited to one role; a gated job whose body is stored
    const approverRole = 'arn:aws:iam::123456789012:role/team/Approver';
    const approvers = createAdminHandler({
      config: { ...config, adminRoutePrincipals: { approveItem: [approverRole] } },
    });
    const gated = newIdentity('tenant-gated');
    const body = { amount: 9000, currency: 'EUR' };
    const hash = payloadHash(body);
    await putWorkItem(fixture.client, tables.jobsTable, {
      identity: gated,
      state: WorkState.awaiting_approval,
      overrides: {
        payloadHash: hash,
        payloadRef: undefined,
        payloadInline: true,
        approvalExpiresAt: Date.now() + 3_600_000,
      },
    });
    await new PayloadStore(fixture.client, tables.payloadsTable, systemClock).put(gated, body, hash);
    const read = { method: 'POST', path: `/items/${gated.tenantId}/${gated.operationId}/payload`, body: {} } as const;
    const audits = await auditCount();

    // act: another principal, then a session of the approver role
    const refused = await call(approvers, read);
    const afterRefusal = await auditCount();
    const shown = await call(approvers, {
      ...read,
      callerArn: 'arn:aws:sts::123456789012:assumed-role/Approver/alice',
      userId: 'AROAAPPROVERROLE0000:alice',
    });

    // assert: refused with nothing shown or audited; allowed with the body, its hash and one audit record
    expect(refused.status).toBe(403);
    expect(JSON.stringify(refused.body)).not.toContain('9000');
    expect(afterRefusal).toBe(audits);
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({ body, payloadHash: hash, bodyStatus: 'verified', state: 'awaiting_approval' });
    expect(await auditCount()).toBe(audits + 1);
    const [latest] = (
      await listAuditRecords({ store: fixture.store, sqs, queueUrl: config.queueUrl ?? '', payloadsTable: '' })
    ).records;
    expect(latest).toMatchObject({
      action: 'read_payload',
      operation: hashIdentifier(gated.operationId, DEVELOPMENT_IDENTIFIER_KEY),
      tenant: hashIdentifier(gated.tenantId, DEVELOPMENT_IDENTIFIER_KEY),
    });
    expect(JSON.stringify(latest)).not.toContain(gated.operationId);
    expect(latest?.caller).toMatchObject({ userId: 'AROAAPPROVERROLE0000:alice' });
  });

  it('a body naming a caller is refused with nothing done, through the URL and where no caller is authenticated', async () => {
    const identity = newIdentity('tenant-who');
    await putWorkItem(fixture.client, tables.jobsTable, { identity, state: WorkState.queued });
    const before = await fixture.store.get(identity);
    const path = `/items/${identity.tenantId}/${identity.operationId}/cancel`;
    const forged = { reason: 'x', caller: { ...TEST_CALLER, userId: 'AIDASOMEONEELSE00000' } };
    const deps = { store: fixture.store, sqs, queueUrl: config.queueUrl ?? '', payloadsTable: config.payloadsTable };

    const viaUrl = await call(open, { method: 'POST', path, body: forged });
    const local = await handleAdminRequest({ method: 'POST', path, body: JSON.stringify(forged), actor: 'ops' }, deps);

    expect(viaUrl.status).toBe(400);
    expect(local.statusCode).toBe(400);
    expect(local.body).toMatchObject({ error: 'invalid_input' });
    expect(await fixture.store.get(identity)).toEqual(before);
  });
});
