import { mkdir, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { childEnv, killAll, ROOT, runCli, type StackProcess, startStack } from '../../support/cli-runner.js';
import { runProcess } from '../../support/process.js';
import { type PythonForProducer, pythonForProducer } from '../../support/python.js';

/** The ```sh block of docs/PRODUCERS.md's section 0 (the local stack), exactly as documented. */
async function documentedQuickstart(): Promise<string> {
  const doc = await readFile(join(ROOT, 'docs/PRODUCERS.md'), 'utf8');
  const at = doc.indexOf('## 0. Against the local stack');
  const block = at < 0 ? undefined : /```sh\n([\s\S]*?)```/.exec(doc.slice(at))?.[1];
  if (!block) throw new Error('docs/PRODUCERS.md: no ```sh block under "## 0. Against the local stack"');
  return block;
}

/**
 * A newcomer's shell: no AWS_* settings, a home with no ~/.aws, the machine's PATH with the Python that has boto3
 * (as `python3`) and node first. Nothing of the test engines: only what section 0 tells them to set.
 */
function freshShellEnv(home: string, python: string): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(childEnv()).filter(([name]) => !name.startsWith('AWS_')));
  const bins = [python === 'python3' ? '' : dirname(python), dirname(process.execPath)].filter(Boolean);
  return { ...env, HOME: home, PATH: [...bins, env.PATH ?? ''].join(':') };
}

describe('docs/PRODUCERS.md section 0, followed literally from a fresh project against `leasefence start`', () => {
  let found: PythonForProducer;
  let project: string;
  let stack: StackProcess | undefined;

  beforeAll(async () => {
    found = pythonForProducer();
    if ('missing' in found) console.log(`[leasefence tests] SKIPPED the producer quick start: ${found.missing}`);
    // a project folder with the package installed (node_modules/leasefence), nothing else
    project = await mkdtemp(join(tmpdir(), 'leasefence-project-'));
    await mkdir(join(project, 'node_modules'));
    await symlink(ROOT, join(project, 'node_modules/leasefence'), 'dir');
  });
  afterAll(async () => {
    await stack?.stop('SIGINT');
    killAll();
    await rm(project, { recursive: true, force: true });
  });

  function python(context: TestContext): string {
    if ('missing' in found) context.skip(found.missing);
    return (found as { python: string }).python;
  }

  it('the Python producer sends a job the local stack runs, with only what the section says to set', async (context) => {
    // prepare: the stack the project runs (its state file in the project's .local), and the documented block
    const py = python(context);
    const local = join(project, '.local');
    const ports = ['--dynamodb-port', '0', '--sqs-port', '0', '--admin-port', '0', '--console-port', '0'];
    stack = startStack(['--memory', '--local-dir', local, ...ports]);
    await stack.waitFor(/Stop with Ctrl-C/, 60_000);
    const script = await documentedQuickstart();

    // act: the block as it stands, in the project folder
    const run = await runProcess('bash', ['-euo', 'pipefail', '-c', script], {
      cwd: project,
      env: freshShellEnv(project, py),
    });

    // assert: the producer answered (new job, body stored), and the stack's worker ran it to success
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ answer: 'new' });
    let state: string | undefined;
    for (let round = 0; round < 60 && state !== 'succeeded'; round += 1) {
      const shown = await runCli(['show', 'acme/refund-r_900', '--json', '--local-dir', local]);
      state = shown.code === 0 ? (JSON.parse(shown.stdout) as { item?: { state?: string } }).item?.state : undefined;
      if (state !== 'succeeded') await new Promise((wait) => setTimeout(wait, 500));
    }
    expect(state).toBe('succeeded');
  }, 180_000);
});
