import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../../lib/document-client.js';
import { payloadHash } from '../../../lib/hashing.js';
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

  it('--help names the payload hash binding', async () => {
    const help = await runCli(['approve', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--payload-hash');
    expect((await runCli(['--help'])).stdout).toMatch(/approve\s+approve a job awaiting approval/);
  });
});
