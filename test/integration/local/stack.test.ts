import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { killAll, readState, runCli, startStack, tempLocalDir } from '../../support/cli-runner.js';

/** True when the port can be bound again (the stack released it). */
function portIsFree(port: number): Promise<boolean> {
  return new Promise((done) => {
    const server = createServer();
    server.once('error', () => done(false));
    server.listen(port, '127.0.0.1', () => server.close(() => done(true)));
  });
}

const portOf = (url: string) => Number(new URL(url).port);
const ANY_PORTS = ['--dynamodb-port', '0', '--sqs-port', '0', '--admin-port', '0', '--console-port', '0'];

describe('npm start: the local stack as a child process', () => {
  const folders: Array<{ remove(): Promise<void> }> = [];
  afterAll(async () => {
    killAll();
    await Promise.all(folders.map((folder) => folder.remove()));
  });

  it('runs the demo in memory, prints one side effect per operation, and exits 0 on SIGINT, freeing its ports', async () => {
    // prepare
    const local = await tempLocalDir();
    folders.push(local);
    const stack = startStack(['--memory', '--demo', '--local-dir', local.dir, ...ANY_PORTS]);

    // act
    await stack.waitFor(/side effects per operation: \S+/, 60_000);
    const state = await readState(local.dir);
    const code = await stack.stop('SIGINT');

    // assert
    const output = stack.output();
    expect(output).toContain('side effects per operation: 1');
    expect(output).toContain('stale writes rejected: 2');
    expect(output).toMatch(/worker-B claimed m_4471\/refund-r_816-\w+ with fence 2/);
    expect(output).toMatch(/worker-A resumed; its confirm of the refund row \('sent'\) carrying fence 1 was REJECTED/);
    expect(output).toMatch(
      /skipped inventory-reservation: class A needs TransactWriteItems, which dynalite does not have/,
    );
    expect(output.match(/ succeeded +[12] +1 (gateway refunds|current statement pointer)/g)).toHaveLength(4);
    expect(output).toContain('no IAM locally');
    expect(code).toBe(0);
    expect(output).toMatch(/stopped\s*$/);
    expect(existsSync(join(local.dir, 'stack.json'))).toBe(false);
    for (const url of Object.values(state.endpoints)) expect(await portIsFree(portOf(url))).toBe(true);
  });

  it('refuses a taken port with exit code 1 and names the flag that changes it', async () => {
    // prepare: occupy a port
    const blocker = createServer();
    await new Promise<void>((done) => blocker.listen(0, '127.0.0.1', () => done()));
    const port = (blocker.address() as { port: number }).port;
    const local = await tempLocalDir();
    folders.push(local);

    // act
    const run = await runCli(['start', '--memory', '--local-dir', local.dir, ...ANY_PORTS, '--sqs-port', String(port)]);
    await new Promise<void>((done) => blocker.close(() => done()));

    // assert
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`port ${port} is in use; pass --sqs-port <port>`);
  });

  it('keeps its data across a restart unless --memory', async () => {
    // prepare: a stack on disk with one finished job
    const local = await tempLocalDir();
    folders.push(local);
    const args = ['--local-dir', local.dir, '--sweep-interval', '1s', ...ANY_PORTS];
    const first = startStack(args);
    await first.waitFor(/Stop with Ctrl-C/);
    const payload = JSON.stringify({ accountId: '7', date: '2026-09-13', lines: 2 });
    const sent = await runCli([
      'enqueue',
      '--type',
      'statement-publication',
      '--tenant',
      'acme',
      '--operation',
      'keep-me',
      '--payload',
      payload,
      '--local-dir',
      local.dir,
    ]);
    expect(sent.code).toBe(0);
    await first.waitFor(/succeeded 1/, 20_000);
    expect(await first.stop('SIGTERM')).toBe(0);

    // act: start again on the same folder
    const second = startStack(args);
    await second.waitFor(/Stop with Ctrl-C/);
    const shown = await runCli(['show', 'acme/keep-me', '--json', '--local-dir', local.dir]);
    const code = await second.stop('SIGINT');

    // assert
    expect(second.output()).toContain('kept from an earlier run');
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.stdout).item).toMatchObject({ state: 'succeeded', fence: 1, outcomeCode: 'published' });
    expect(code).toBe(0);
  });

  it('--disable-job-type: the message is acknowledged and the row waits queued, nothing runs', async () => {
    // prepare
    const local = await tempLocalDir();
    folders.push(local);
    const stack = startStack([
      '--memory',
      '--verbose',
      '--local-dir',
      local.dir,
      ...ANY_PORTS,
      '--disable-job-type',
      'statement-publication',
    ]);
    await stack.waitFor(/Stop with Ctrl-C/);

    // act
    const payload = JSON.stringify({ accountId: '9', date: '2026-09-13', lines: 1 });
    const sent = await runCli([
      'enqueue',
      '--type',
      'statement-publication',
      '--tenant',
      'acme',
      '--operation',
      'later',
      '--payload',
      payload,
      '--local-dir',
      local.dir,
    ]);
    await stack.waitFor(/job type disabled: message acknowledged, row left queued/, 20_000);
    const shown = await runCli(['show', 'acme/later', '--json', '--local-dir', local.dir]);
    const code = await stack.stop('SIGINT');

    // assert
    expect(sent.code).toBe(0);
    expect(stack.output()).toContain('switched off');
    expect(JSON.parse(shown.stdout).item).toMatchObject({ state: 'queued', fence: 0, attempts: 0 });
    expect(code).toBe(0);
  });
});
