import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../../lib/clock.js';
import { createDocumentClient } from '../../../lib/document-client.js';
import { DEVELOPMENT_IDENTIFIER_KEY, hashIdentifier, payloadHash } from '../../../lib/hashing.js';
import { PayloadStore } from '../../../lib/store/index.js';
import { killAll, runCli, startMemoryStack } from '../../support/cli-runner.js';
import { putWorkItem } from '../../support/factories.js';

type Stack = Awaited<ReturnType<typeof startMemoryStack>>;

describe('leasefence approve / reject against a running local stack', () => {
  let stack: Stack;
  let client: DynamoDBDocumentClient;
  const cli = (...args: string[]) => runCli([...args, ...stack.at]);
  const seed = (operationId: string, payload: unknown) =>
    putWorkItem(client, stack.state.tables.jobs, {
      identity: { tenantId: 'ops', operationId },
      state: 'awaiting_approval',
      now: Date.now(),
      overrides: { payloadHash: payloadHash(payload) },
    });

  beforeAll(async () => {
    stack = await startMemoryStack(['--sweep-interval', '60s']);
    client = createDocumentClient({ endpoint: stack.state.endpoints.dynamodb });
  });
  afterAll(async () => {
    client?.destroy();
    await stack?.close();
    killAll();
  });

  it('lists awaiting jobs; an approval for another payload hash exits 1 and changes nothing; the reviewed hash queues it', async () => {
    // Prepare
    await seed('refund-1', { amount: 5000 });
    await seed('refund-2', { amount: 7000 });

    // Act (one CLI process at a time)
    const listed = await cli('ls', '--state', 'awaiting_approval', '--tenant', 'ops', '--json');
    const wrong = await cli('approve', 'ops/refund-1', '--reason', 'ok', '--payload-hash', payloadHash({ amount: 1 }));
    const still = await cli('show', 'ops/refund-1', '--json');
    const right = await cli(
      'approve',
      'ops/refund-1',
      '--reason',
      'ticket 912 checked',
      '--payload-hash',
      payloadHash({ amount: 5000 }),
      '--actor',
      'alice',
    );
    const rejected = await cli('reject', 'ops/refund-2', '--reason', 'not covered', '--json');
    const late = await cli('approve', 'ops/refund-2', '--reason', 'too late');

    // Assert
    expect(listed.code).toBe(0);
    expect(
      JSON.parse(listed.stdout)
        .items.map((item: { operationId: string }) => item.operationId)
        .sort(),
    ).toEqual(['refund-1', 'refund-2']);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('payload hash is not the one the approver saw');
    expect(JSON.parse(still.stdout).item).toMatchObject({ state: 'awaiting_approval', audit: [] });
    expect(right.code).toBe(0);
    expect(right.stdout).toContain('approved ops/refund-1: awaiting_approval → queued');
    expect(right.stdout).toContain('audited as alice');
    expect(right.stdout).toContain(`bound to payload hash ${payloadHash({ amount: 5000 })}`);
    expect(rejected.code).toBe(0);
    expect(JSON.parse(rejected.stdout).item).toMatchObject({ state: 'cancelled', errorCode: 'approval_rejected' });
    expect(late.code).toBe(1);
    expect(late.stderr).toContain('no longer awaits approval');
  });

  it('show --payload gives the approver the body the hash binds, the expiry and the commands; the read is audited', async () => {
    // prepare: a gated job whose body is stored, expiring in two hours; an approved job (its audit has no fence)
    const body = { merchantId: 'm_7', amount: 9000, currency: 'EUR' };
    const expiresAt = Date.now() + 2 * 3_600_000;
    await putWorkItem(client, stack.state.tables.jobs, {
      identity: { tenantId: 'ops', operationId: 'refund-3' },
      state: 'awaiting_approval',
      now: Date.now(),
      overrides: {
        payloadHash: payloadHash(body),
        payloadRef: undefined,
        payloadInline: true,
        approvalExpiresAt: expiresAt,
        approvers: 'anyone',
      },
    });
    await new PayloadStore(client, stack.state.tables.payloads, systemClock).put(
      { tenantId: 'ops', operationId: 'refund-3' },
      body,
      payloadHash(body),
    );

    // act
    const shown = await cli('show', 'ops/refund-3', '--payload');
    const json = await cli('show', 'ops/refund-3', '--payload', '--json');
    const audit = await cli('audit', '--json');
    const approvedShow = await cli('show', 'ops/refund-1');

    // assert: the body, its hash and the expiry; the exact approve command
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('"amount": 9000');
    expect(shown.stdout).toContain(`sha-256 ${payloadHash(body)}`);
    expect(shown.stdout).toContain(new Date(expiresAt).toISOString());
    expect(shown.stdout).toContain(`leasefence approve ops/refund-3 --payload-hash ${payloadHash(body)}`);
    expect(JSON.parse(json.stdout).payload).toMatchObject({
      body,
      bodyStatus: 'verified',
      approvalExpiresAt: expiresAt,
    });
    // each read left an audit record naming the job (by its keyed pseudonym: the audit log keeps no raw id)
    const reads = JSON.parse(audit.stdout).records.filter(
      (record: { action: string; operation?: string }) =>
        record.action === 'read_payload' && record.operation === hashIdentifier('refund-3', DEVELOPMENT_IDENTIFIER_KEY),
    );
    expect(reads).toHaveLength(2);
    // the approval's audit row has no fence: shown as '-', never 'undefined'
    expect(approvedShow.stdout).toMatch(/approve +awaiting_approval +queued +- +ticket 912 checked/);
    expect(approvedShow.stdout).not.toContain('undefined');
  });

  it('show --payload refuses a job that does not await approval, and shows nothing', async () => {
    const shown = await cli('show', 'ops/refund-2', '--payload');
    expect(shown.code).toBe(1);
    expect(shown.stderr).toContain('its payload is shown to approvers only while it awaits approval');
    expect(shown.stdout).toBe('');
  });

  it('--help names the payload hash binding', async () => {
    const help = await runCli(['approve', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--payload-hash');
    expect((await runCli(['--help'])).stdout).toMatch(/approve\s+approve a job awaiting approval/);
  });
});
