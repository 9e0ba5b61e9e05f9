import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANY_PORTS } from '../../../infra/cli/local-options.js';
import { LocalStackNotRunningError } from '../../../infra/local/errors.js';
import { type RunningLocalStack, startLocalStack } from '../../../infra/local/stack.js';
import { localStackClients } from '../../../infra/testing/index.js';
import { parseIdentity } from '../../../lib/identity.js';
import { sendJob } from '../../../lib/index.js';

describe('localStackClients (leasefence/testing): SDK clients pointed at the running local stack', () => {
  let dir: string;
  let stack: RunningLocalStack;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'leasefence-local-clients-'));
    stack = await startLocalStack({
      dir,
      memory: true,
      ports: ANY_PORTS,
      pollers: 1,
      sweepIntervalMs: 3_600_000,
      verbose: false,
      writeStateFile: true,
      log: () => {},
    });
  });
  afterAll(async () => {
    await stack?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('finds the stack through its state file, and its producer sends a job the stack runs', async () => {
    // act
    const local = await localStackClients({ localDir: dir });
    const identity = parseIdentity({ tenantId: 'acme', operationId: 'stmt-local-1' });
    let item: Awaited<ReturnType<typeof stack.store.get>>;
    try {
      await sendJob(local.producer, {
        ...identity,
        jobType: 'statement-publication',
        payload: { accountId: 'account-42', date: '2026-09-13', lines: 3 },
      });
      item = await stack.store.get(identity);
      for (let tries = 0; tries < 300 && item?.state !== 'succeeded'; tries += 1) {
        await new Promise((wait) => setTimeout(wait, 100));
        item = await stack.store.get(identity);
      }
    } finally {
      local.destroy();
    }

    // assert
    expect(local.tables).toEqual(stack.state.tables);
    expect(local.queueUrl).toBe(stack.state.queues.jobs);
    expect(local.adminUrl).toBe(stack.state.endpoints.admin);
    expect(item).toMatchObject({ state: 'succeeded', jobType: 'statement-publication' });
  });

  it('refuses a folder without a live stack, naming its state file', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'leasefence-no-stack-'));
    try {
      const refused = await localStackClients({ localDir: empty }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(LocalStackNotRunningError);
      expect((refused as Error).message).toContain(join(empty, 'stack.json'));
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});
