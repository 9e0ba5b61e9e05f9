import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../../lib/document-client.js';
import { parseIdentity } from '../../../lib/identity.js';
import { WorkItemStore } from '../../../lib/store/work-item-store.js';
import type { WorkItem } from '../../../lib/store/work-items/work-item.js';
import { type CliLaunch, killAll, ROOT, runCli, startMemoryStack } from '../../support/cli-runner.js';
import { compilePackage, consumerProject } from '../../support/compiled-package.js';

const run = promisify(execFile);
type Stack = Awaited<ReturnType<typeof startMemoryStack>>;

/** States a job leaves only by an operator's hand: where each of these jobs comes to rest. */
const RESTING = new Set(['succeeded', 'failed_terminal', 'unknown', 'cancelled', 'quarantined']);

/**
 * The case of issue 31: an installed leasefence runs `leasefence start --jobs jobs.ts`. The compiled CLI registers
 * tsx's loader for the process, so the module's `import 'leasefence'` is the stack's own copy and `instanceof`
 * holds; where a second copy does meet the worker (two installs), brand and code still recognise its errors
 * (test/unit/errors.test.ts). Either way a job's TerminalJobError must never be taken for an ambiguous failure.
 */
describe('an installed leasefence running a .ts jobs module (tsx loaded for the process)', () => {
  let work: string;
  let project: string;
  let launch: CliLaunch;
  let stack: Stack;
  let store: WorkItemStore;
  let destroyClient: () => void;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'leasefence-ts-jobs-'));
    const pkg = await compilePackage(work);
    const fixture = await readFile(join(ROOT, 'test/integration/local/fixtures/failing-jobs.ts'), 'utf8');
    project = await consumerProject(work, pkg, { 'jobs.ts': fixture }, ['zod']);
    launch = { bin: pkg.bin, cwd: project };
    stack = await startMemoryStack(['--jobs', 'jobs.ts', '--sweep-interval', '1s'], launch);
    const client = createDocumentClient({ endpoint: stack.state.endpoints.dynamodb });
    destroyClient = () => client.destroy();
    store = new WorkItemStore({ client, tableName: stack.state.tables.jobs });
  }, 120_000);
  afterAll(async () => {
    destroyClient?.();
    await stack?.close();
    killAll();
    if (work) await rm(work, { recursive: true, force: true });
  });

  /** Enqueues one job through the installed CLI and waits until its row comes to rest. */
  async function runToRest(type: string, operationId: string): Promise<WorkItem | undefined> {
    const args = ['enqueue', '--type', type, '--tenant', 'acme', '--operation', operationId, '--payload', '{}'];
    const sent = await runCli([...args, ...stack.at], { launch });
    expect(sent.code, sent.stderr).toBe(0);
    const identity = parseIdentity({ tenantId: 'acme', operationId });
    let item = await store.get(identity);
    // A hang detector, not a verdict: a retry's wake-up can take half a minute (the sweeper's grace period).
    for (let tries = 0; tries < 2_400 && !RESTING.has(String(item?.state)); tries += 1) {
      await new Promise((wait) => setTimeout(wait, 100));
      item = await store.get(identity);
    }
    return item;
  }

  it('loads the module into the process’s own module graph: its TerminalJobError is the runtime’s class', async () => {
    const probe = `
      import { loadJobsModule } from ${JSON.stringify(join(launch.bin as string, '../../local/jobs-module.js'))};
      import { TerminalJobError } from ${JSON.stringify(join(launch.bin as string, '../../../lib/errors.js'))};
      const loaded = await loadJobsModule('jobs.ts');
      console.log(JSON.stringify({ sameClass: loaded.exports.TerminalJobError === TerminalJobError }));`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', probe], { cwd: project });
    expect(JSON.parse(stdout)).toEqual({ sameClass: true });
  });

  it('a TerminalJobError ends the job failed_terminal with its code after one attempt', async () => {
    const item = await runToRest('declined-charge', 'decline-1');
    expect(item).toMatchObject({ state: 'failed_terminal', errorCode: 'card_declined', attempts: 1 });
    expect(item?.errorMessage).toContain('the card was declined');
  });

  it('a RetryableJobError is retried with its code, then ends failed_terminal (attempts exhausted), never unknown', async () => {
    const item = await runToRest('throttled-call', 'throttle-1');
    expect(item).toMatchObject({ state: 'failed_terminal', errorCode: 'attempts_exhausted', attempts: 2 });
    // Attempt 1 is retried with the job's code; attempt 2 is the last, so the store ends it as exhausted.
    expect(item?.ah?.map((attempt) => attempt.r)).toEqual(['provider_throttled', 'attempts_exhausted']);
    expect(item?.errorMessage).toContain('last error: provider_throttled');
  });
});
