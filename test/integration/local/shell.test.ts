import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { childEnv, killAll, ROOT, runCli, startStack, tempLocalDir } from '../../support/cli-runner.js';
import { ctrlCInTerminal } from '../../support/terminal.js';

const ANY_PORTS = ['--dynamodb-port', '0', '--sqs-port', '0', '--admin-port', '0'];

describe('the CLI under the shell', () => {
  const folders: Array<{ remove(): Promise<void> }> = [];
  afterAll(async () => {
    killAll();
    await Promise.all(folders.map((folder) => folder.remove()));
  });

  it.each(['SIGINT', 'SIGTERM'] as const)(
    'npm start stops cleanly on %s sent to the npm process itself',
    async (signal) => {
      // prepare: npm start, as a newcomer runs it
      const local = await tempLocalDir();
      folders.push(local);
      const stack = startStack(['--memory', '--local-dir', local.dir, ...ANY_PORTS], {}, 'npm');
      await stack.waitFor(/Stop with Ctrl-C/, 60_000);

      // act: the signal goes to npm's pid only (what `kill -INT <pid>` of a background `npm start &` does)
      const code = await stack.stop(signal, 30_000);

      // assert: the stack heard it, shut down and exited 0 (a SIGKILL after the wait would give null)
      expect(stack.output()).toContain(`${signal}: stopping pollers`);
      expect(stack.output()).toMatch(/stopped\s*$/);
      expect(code).toBe(0);
    },
    90_000,
  );

  it('npm start in a terminal stops cleanly on Ctrl-C (the group and npm both deliver SIGINT)', async () => {
    // prepare: npm start on a pseudo-terminal, as a newcomer types it
    const local = await tempLocalDir();
    folders.push(local);
    const command = ['npm', 'start', '--silent', '--', '--memory', '--local-dir', local.dir, ...ANY_PORTS];

    // act: Ctrl-C typed at the terminal once the stack is up
    const run = await ctrlCInTerminal(command, {
      cwd: ROOT,
      env: childEnv(),
      ready: /Stop with Ctrl-C/,
      timeoutMs: 90_000,
    });

    // assert: one clean shutdown, exit 0, the state file removed
    expect(run.output).toContain('SIGINT: stopping pollers');
    expect(run.output).not.toContain('exiting without a clean shutdown');
    expect(run.output).toMatch(/stopped/);
    expect(run.code).toBe(0);
    expect(existsSync(join(local.dir, 'stack.json'))).toBe(false);
  }, 120_000);

  it('ends quietly with exit code 0 when the reader of its output goes away (EPIPE)', async () => {
    // act: `leasefence --help | head -0`: stdout is closed before the CLI writes
    const run = await runCli(['--help'], { closeStdout: true });

    // assert
    expect(run.stderr).not.toMatch(/EPIPE|Error/);
    expect(run.code).toBe(0);
  });
});
