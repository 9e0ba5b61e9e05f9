import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../../lib/document-client.js';
import type { WorkState } from '../../../lib/states.js';
import { killAll, runCli, startCommand, startMemoryStack } from '../../support/cli-runner.js';
import { putWorkItem } from '../../support/factories.js';

type Stack = Awaited<ReturnType<typeof startMemoryStack>>;

describe('leasefence CLI: what the console needs (any-state ls, counts, audit, console)', () => {
  let stack: Stack;
  let client: DynamoDBDocumentClient;
  const cli = (...args: string[]) => runCli([...args, ...stack.at]);
  const seed = (tenantId: string, operationId: string, state: WorkState, overrides = {}) =>
    putWorkItem(client, stack.state.tables.jobs, {
      identity: { tenantId, operationId },
      state,
      now: Date.now(),
      overrides,
    });

  beforeAll(async () => {
    stack = await startMemoryStack(['--sweep-interval', '60s']);
    client = createDocumentClient({ endpoint: stack.state.endpoints.dynamodb });
    const start = Date.now() - 60_000;
    await seed('cons', 'paid-1', 'succeeded', {
      fence: 2,
      ah: [
        { f: 1, o: 'worker-a', s: start, e: start + 31_000, r: 'provider_timeout' },
        { f: 2, o: 'worker-b', s: start + 40_000, e: start + 42_000, r: 'refunded' },
      ],
    });
    await seed('cons', 'paid-2', 'succeeded');
    await seed('cons', 'dropped-1', 'cancelled');
    await seed('cons', 'stuck-1', 'unknown');
  });
  afterAll(async () => {
    client?.destroy();
    await stack?.close();
    killAll();
  });

  it('ls lists succeeded and cancelled items of a tenant, and refuses them across tenants (a Scan)', async () => {
    // act
    const [succeeded, all, refused] = await Promise.all([
      cli('ls', '--state', 'succeeded', '--tenant', 'cons', '--json'),
      cli('ls', '--state', 'all', '--tenant', 'cons'),
      cli('ls', '--state', 'succeeded'),
    ]);

    // assert
    expect(succeeded.code).toBe(0);
    const items = JSON.parse(succeeded.stdout).items as Array<{ operationId: string; state: string }>;
    expect(items.map((item) => item.operationId).sort()).toEqual(['paid-1', 'paid-2']);
    expect(all.code).toBe(0);
    expect(all.stdout).toMatch(/cons\/dropped-1 +demo +cancelled/);
    expect(all.stdout).toMatch(/cons\/stuck-1 +demo +unknown/);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--tenant: is required with this --state');
  });

  it('show prints the attempt history', async () => {
    // act
    const shown = await cli('show', 'cons/paid-1');

    // assert
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('attempts (oldest first, last five)');
    expect(shown.stdout).toMatch(/1 +worker-a +1m ago +31s +provider_timeout/);
    expect(shown.stdout).toMatch(/2 +worker-b +\d+s ago +2s +refunded/);
  });

  it('counts prints per-state counts, the DLQ and the signals; with --tenant every state', async () => {
    // act
    const [global, tenant] = await Promise.all([cli('counts'), cli('counts', '--tenant', 'cons', '--json')]);

    // assert
    expect(global.code).toBe(0);
    expect(global.stdout).toMatch(/unknown +1 /);
    expect(global.stdout).toMatch(/succeeded +n\/a +counting this state across tenants would need a Scan/);
    expect(global.stdout).toContain('DLQ: 0 waiting');
    expect(global.stdout).toMatch(/takeovers: 0 events \(no claims yet\)/); // the stack's own counters, via /health
    const states = JSON.parse(tenant.stdout).states as Array<{ state: string; count: number }>;
    expect(Object.fromEntries(states.map((entry) => [entry.state, entry.count]))).toMatchObject({
      succeeded: 2,
      cancelled: 1,
      unknown: 1,
    });
  });

  it('audit shows an item audit trail after an action, and the audit log after a redrive', async () => {
    // act
    const resolved = await cli('resolve', 'cons/stuck-1', '--to', 'failed_terminal', '--reason', 'provider says no');
    const [trail, redrive] = [await cli('audit', 'cons/stuck-1', '--json'), await cli('redrive')];
    const log = await cli('audit');

    // assert
    expect(resolved.code).toBe(0);
    expect(JSON.parse(trail.stdout).audit).toEqual([
      expect.objectContaining({ action: 'resolve_failed_terminal', reason: 'provider says no', from: 'unknown' }),
    ]);
    expect(redrive.code).toBe(0);
    expect(log.code).toBe(0);
    expect(log.stdout).toMatch(/local-operator +redrive/);
  });

  it('console serves the page on 127.0.0.1 against the local stack and stops on Ctrl-C', async () => {
    // act
    const running = startCommand(['console', '--port', '0', ...stack.at]);
    const [, url] = await running.waitFor(/(http:\/\/127\.0\.0\.1:[0-9]+\/)/);
    const page = await fetch(url as string);
    const html = await page.text();
    const code = await running.stop('SIGINT');

    // assert
    expect(page.status).toBe(200);
    expect(html).toContain('name="leasefence-token"');
    expect(html).toContain('local stack (pid');
    expect(code).toBe(0);
  });
});
