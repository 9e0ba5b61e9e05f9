import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../../lib/clock.js';
import { createDocumentClient } from '../../../lib/document-client.js';
import { parseIdentity } from '../../../lib/identity.js';
import { recordQuarantine } from '../../../lib/store/records/quarantine.js';
import { WorkItemStore } from '../../../lib/store/work-item-store.js';
import { killAll, runCli, startMemoryStack } from '../../support/cli-runner.js';
import { putWorkItem } from '../../support/factories.js';

type Stack = Awaited<ReturnType<typeof startMemoryStack>>;

describe('leasefence CLI against a running local stack: items', () => {
  let stack: Stack;
  let client: DynamoDBDocumentClient;
  const hour = 3_600_000;
  const seed = (
    tenantId: string,
    operationId: string,
    state: Parameters<typeof putWorkItem>[2]['state'],
    overrides = {},
  ) =>
    putWorkItem(client, stack.state.tables.jobs, {
      identity: { tenantId, operationId },
      state,
      now: Date.now(),
      overrides,
    });
  const cli = (...args: string[]) => runCli([...args, ...stack.at]);

  beforeAll(async () => {
    stack = await startMemoryStack(['--sweep-interval', '60s']);
    client = createDocumentClient({ endpoint: stack.state.endpoints.dynamodb });
  });
  afterAll(async () => {
    client?.destroy();
    await stack?.close();
    killAll();
  });

  it('lists a quarantined message as a message; show finds it by the identity it named; retry and cancel say why nothing can be done', async () => {
    // prepare: the record the worker writes for a message naming a job type it does not run
    await recordQuarantine(client, stack.state.tables.jobs, systemClock, {
      messageId: 'msg-q-1',
      body: '{"v":1,"kind":"job","tenantId":"qt","operationId":"x-1","jobType":"no-such-type"}',
      reason: 'unknown_job_type',
      detail: 'job type is not registered',
      tenantId: 'qt',
      operationId: 'x-1',
    });

    // act
    // one CLI process at a time: each is a node process with its own SDK clients
    const listed = await cli('ls', '--state', 'quarantined', '--tenant', 'qt');
    const shown = await cli('show', 'qt/x-1');
    const shownJson = await cli('show', 'qt/x-1', '--json');
    const retried = await cli('retry', 'qt/x-1', '--reason', 'try again');
    const cancelled = await cli('cancel', 'qt/x-1', '--reason', 'not wanted');
    const missing = await cli('show', 'qt/x-2');

    // assert
    expect(listed.stdout).toMatch(/message msg-q-1 \(named qt\/x-1\) .* unknown_job_type/);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('qt/x-1  no work item: the worker quarantined the message(s) that named it');
    expect(shown.stdout).toMatch(/msg-q-1 +unknown_job_type +job type is not registered/);
    expect(JSON.parse(shownJson.stdout)).toMatchObject({
      item: null,
      quarantinedMessages: [{ messageId: 'msg-q-1', reason: 'unknown_job_type', operationId: 'x-1' }],
      complete: true,
    });
    for (const [refused, verb] of [
      [retried, 'retry'],
      [cancelled, 'cancel'],
    ] as const) {
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(
        `no work item qt/x-1 to ${verb}: the worker quarantined the message that named it`,
      );
      expect(refused.stderr).toContain('message msg-q-1: unknown_job_type (job type is not registered)');
    }
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no work item qt/x-2');
  });

  it('enqueue sends a job the local worker runs; show prints the row with its hash and no payload body', async () => {
    // act
    const payload = JSON.stringify({ merchantId: 'm_1', amount: 12.5, currency: 'EUR' });
    const sent = await cli(
      'enqueue',
      '--type',
      'refund-settlement',
      '--tenant',
      'm_1',
      '--operation',
      'r-1',
      '--payload',
      payload,
      '--json',
    );
    const store = new WorkItemStore({ client, tableName: stack.state.tables.jobs });
    for (
      let tries = 0;
      tries < 100 && (await store.get(parseIdentity({ tenantId: 'm_1', operationId: 'r-1' })))?.state !== 'succeeded';
      tries += 1
    ) {
      await new Promise((wait) => setTimeout(wait, 100));
    }
    const [json, human] = await Promise.all([cli('show', 'm_1', 'r-1', '--json'), cli('show', 'm_1/r-1')]);

    // assert
    expect(sent.code).toBe(0);
    expect(JSON.parse(sent.stdout)).toMatchObject({ tenantId: 'm_1', operationId: 'r-1', payloadStored: 'stored' });
    expect(JSON.parse(sent.stdout).payloadHash).toMatch(/^[0-9a-f]{64}$/);
    const item = JSON.parse(json.stdout).item;
    expect(item).toMatchObject({ state: 'succeeded', fence: 1, outcomeCode: 'refunded', audit: [] });
    expect(JSON.stringify(item)).not.toContain('12.5');
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/m_1\/r-1 +refund-settlement +succeeded/);
    expect(human.stdout).toContain(`sha-256 ${JSON.parse(sent.stdout).payloadHash}`);
  });

  it('enqueue --carry-body sends the body in the message, nothing written by the CLI; the local worker stores it and runs the job', async () => {
    const identity = parseIdentity({ tenantId: 'm_1', operationId: 'r-carried' });
    const payload = JSON.stringify({ merchantId: 'm_1', amount: 7.5, currency: 'EUR' });
    const sent = await cli(
      'enqueue',
      '--carry-body',
      '--type',
      'refund-settlement',
      '--tenant',
      'm_1',
      '--operation',
      'r-carried',
      '--payload',
      payload,
      '--json',
    );
    const store = new WorkItemStore({ client, tableName: stack.state.tables.jobs });
    for (let tries = 0; tries < 100 && (await store.get(identity))?.state !== 'succeeded'; tries += 1) {
      await new Promise((wait) => setTimeout(wait, 100));
    }

    expect(sent.code).toBe(0);
    expect(JSON.parse(sent.stdout)).toMatchObject({
      operationId: 'r-carried',
      answer: 'new',
      payloadStored: 'carried',
    });
    expect(await store.get(identity)).toMatchObject({ state: 'succeeded', payloadInline: true });
  });

  it('ls pages parked items oldest first, filters by tenant and age, and lists claimed and queued items', async () => {
    // prepare
    const now = Date.now();
    for (const [operationId, age] of [
      ['old', 3 * hour],
      ['older', 5 * hour],
      ['new', 60_000],
    ] as const) {
      await seed('lsx', operationId, 'unknown', { parkedAt: now - age });
    }
    await seed('lsx', 'running', 'claimed', { leaseExpiresAt: now + hour, deadlineAt: now + hour });
    await seed('lsx', 'waiting', 'queued', { availableAt: now + hour, deadlineAt: now + hour });

    // act
    const first = await cli('ls', '--state', 'unknown', '--tenant', 'lsx', '--limit', '2', '--json');
    const cursor = JSON.parse(first.stdout).cursor as string;
    const [second, aged, human, claimed, queued] = await Promise.all([
      cli('ls', '--state', 'unknown', '--tenant', 'lsx', '--limit', '2', '--cursor', cursor, '--json'),
      cli('ls', '--state', 'unknown', '--tenant', 'lsx', '--older-than', '1h', '--json'),
      cli('ls', '--tenant', 'lsx'),
      cli('ls', '--state', 'claimed', '--tenant', 'lsx'),
      cli('ls', '--state', 'queued', '--tenant', 'lsx', '--json'),
    ]);

    // assert
    const ids = (run: { stdout: string }) =>
      JSON.parse(run.stdout).items.map((item: { operationId: string }) => item.operationId);
    expect(ids(first)).toEqual(['older', 'old']);
    expect(ids(second)).toEqual(['new']);
    expect(JSON.parse(second.stdout).cursor).toBeUndefined();
    expect(ids(aged)).toEqual(['older', 'old']);
    expect(human.stdout).toMatch(/lsx\/older .* 5h ago/);
    expect(human.stdout).toMatch(/lsx\/new .* 1m ago/);
    expect(ids(queued)).toEqual(['waiting']);
    expect(claimed.stdout).toMatch(/lsx\/running +demo +1 +1\/3 +factory-worker +in (59|60)m/);
  });

  it('resolve, retry and cancel are audited with the actor, raise the fence, and refuse an illegal transition', async () => {
    // prepare
    await seed('ops', 'settle-1', 'unknown');
    await seed('ops', 'failed-1', 'failed_terminal');
    await seed('ops', 'later-1', 'queued', { availableAt: Date.now() + hour, deadlineAt: Date.now() + hour });

    // act
    const [resolved, retried, cancelled] = await Promise.all([
      cli(
        'resolve',
        'ops/settle-1',
        '--to',
        'succeeded',
        '--reason',
        'provider shows it',
        '--outcome-code',
        'refunded',
        '--json',
      ),
      cli('retry', 'ops', 'failed-1', '--reason', 'template fixed', '--actor', 'alice'),
      cli('cancel', 'ops/later-1', '--reason', 'customer withdrew', '--json'),
    ]);
    const again = await cli('resolve', 'ops/settle-1', '--to', 'succeeded', '--reason', 'twice');

    // assert
    expect(resolved.code).toBe(0);
    expect(JSON.parse(resolved.stdout).item).toMatchObject({ state: 'succeeded', fence: 2, outcomeCode: 'refunded' });
    expect(JSON.parse(resolved.stdout).item.audit).toEqual([
      expect.objectContaining({
        actor: 'local-operator',
        action: 'resolve_succeeded',
        from: 'unknown',
        to: 'succeeded',
        fence: 2,
      }),
    ]);
    expect(retried.stdout.trim()).toBe(
      'requeued ops/failed-1: failed_terminal → queued, fence 2, audited as alice; wake-up sent',
    );
    expect(JSON.parse(cancelled.stdout).item).toMatchObject({ state: 'cancelled', fence: 1 });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('ops/settle-1 is succeeded; allowed only from unknown');
  });

  it('show escapes control characters a row holds (written before validation existed) instead of printing them', async () => {
    // arrange: a row whose audit and error text carry terminal escape sequences
    const spoof = '\u001b[2J\u001b[31mFAKE: resolved by root';
    await seed('ops', 'spoofed-1', 'failed_terminal', {
      errorCode: 'E_X',
      errorMessage: `boom\r${spoof}`,
      audit: [
        {
          at: Date.now() - hour,
          actor: 'root\u202e',
          action: 'resolve',
          from: 'unknown',
          to: 'failed_terminal',
          reason: spoof,
          fence: 1,
        },
      ],
    });

    // act
    const [human, json] = await Promise.all([cli('show', 'ops/spoofed-1'), cli('show', 'ops/spoofed-1', '--json')]);

    // assert
    expect(human.code).toBe(0);
    expect(human.stdout).not.toContain('\u001b');
    expect(human.stdout).not.toContain('\r');
    expect(human.stdout).not.toContain('\u202e');
    expect(human.stdout).toContain('\\u001b[2J\\u001b[31mFAKE: resolved by root');
    expect(human.stdout).toContain('root\\u202e');
    expect(JSON.parse(json.stdout).item.audit[0].reason).toBe(spoof);
    expect(json.stdout).not.toContain('\u202e');
  });

  it('answers bad arguments with exit code 2 naming the argument, and a missing item with exit code 1', async () => {
    // act
    const [state, operation, to, missing] = await Promise.all([
      cli('ls', '--state', 'finished'),
      cli('show', 'ops'),
      cli('resolve', 'ops/settle-1', '--to', 'maybe', '--reason', 'x'),
      cli('show', 'ops/never-enqueued'),
    ]);

    // assert
    expect([state.code, operation.code, to.code]).toEqual([2, 2, 2]);
    expect(state.stderr).toContain('leasefence ls: --state:');
    expect(operation.stderr).toContain('<operation>: is required');
    expect(to.stderr).toContain('--to:');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no work item ops/never-enqueued');
  });
});
