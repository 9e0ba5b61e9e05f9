import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../../infra/cli/main.js';
import { COMMAND_SUMMARIES } from '../../../infra/cli/summaries.js';
import { writeStackState } from '../../../infra/local/state-file.js';
import { ROOT } from '../../support/cli-runner.js';
import { captureIo } from './io.js';

describe('leasefence argument handling (in-process, nothing is contacted)', () => {
  it.each(Object.keys(COMMAND_SUMMARIES))('%s --help prints its usage and exits 0', async (name) => {
    const io = captureIo();
    expect(await main([name, '--help'], io)).toBe(0);
    expect(io.stdout()).toContain(`usage: leasefence ${name}`);
    expect(io.stdout()).toContain('--json');
  });

  it('lists every command in the general help; no command is a usage error', async () => {
    const help = captureIo();
    const none = captureIo();
    expect(await main(['--help'], help)).toBe(0);
    expect(await main([], none)).toBe(2);
    for (const name of Object.keys(COMMAND_SUMMARIES)) expect(help.stdout()).toContain(`  ${name} `);
    expect(none.stderr()).toContain('a command is required');
  });

  it.each([['--version'], ['-v'], ['version']])('%s prints the version of package.json and exits 0', async (flag) => {
    const io = captureIo();
    const manifest = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(await main([flag], io)).toBe(0);
    expect(io.stdout()).toBe(manifest.version);
  });

  it.each([
    [['frobnicate'], "unknown command 'frobnicate'"],
    [['ls', '--nope'], 'leasefence ls: --nope: unknown flag (see --help for the flags)'],
    [['ls', '--limit', '-5'], 'leasefence ls: --limit: must be an integer from 1 to 100'],
    [['ls', '--limit'], 'leasefence ls: --limit: needs a value'],
    [
      ['ls', '--tenant', '-x'],
      'leasefence ls: --tenant: needs a value (one that starts with a dash is written --tenant=-x)',
    ],
    [['ls', '--all=yes'], 'leasefence ls: --all: is a switch and takes no value'],
    [['ls', '--state', 'finished'], 'leasefence ls: --state: Invalid option'],
    [['ls', '--limit', '500'], '--limit: must be at most 100'],
    [['ls', '--older-than', 'ten minutes'], '--older-than: must be a duration like 30s, 10m, 2h or 3d'],
    [['ls', 'extra'], "unexpected argument 'extra'"],
    [['show', 'acme'], '<operation>: is required'],
    [['show', 'ac#me', 'op'], '<tenant>: tenantId must be'],
    [['show', 'acme', 'op', 'more'], "unexpected argument 'more'"],
    [['resolve', 'acme/op', '--to', 'maybe', '--reason', 'x'], '--to: Invalid option'],
    [['resolve', 'acme/op', '--to', 'succeeded'], '--reason: is required'],
    [['resolve', 'acme/op', '--to', 'succeeded', '--reason', '   '], '--reason: reason must not be empty'],
    [['retry', 'acme/op', '--reason'], 'leasefence retry: --reason: needs a value'],
    [
      ['resolve', 'acme/op', '--to', 'succeeded', '--reason', '\u001b[2J\u001b[31mFAKE: resolved by root'],
      '--reason: reason must not contain control characters',
    ],
    [['cancel', 'acme/op', '--reason', 'ok\rspoofed'], '--reason: reason must not contain control characters'],
    [
      ['retry', 'acme/op', '--reason', 'r', '--actor', 'root\u202e'],
      '--actor: actor must not contain control characters',
    ],
    [['cancel', 'acme/op'], '--reason: is required'],
    [['enqueue', '--tenant', 'a', '--operation', 'b', '--payload', '{}'], '--type: is required'],
    [
      ['enqueue', '--type', 't', '--tenant', 'a', '--operation', 'b'],
      '--payload: give exactly one of --payload or --payload-file',
    ],
    [
      ['enqueue', '--type', 't', '--tenant', 'a', '--operation', 'b', '--payload', '{', '--delay', '901'],
      '--delay: must be at most 900',
    ],
    [['redrive', '--max', '0'], '--max: must be at least 1'],
    [['erase', 'acme', '--reason', 'r'], '--yes: erasing cannot be undone'],
    [['erase', '--reason', 'r', '--yes'], '<tenant>: is required'],
    [['check', '--jobs', 'test/unit/cli/fixtures/missing.ts'], '--jobs: cannot load test/unit/cli/fixtures/missing.ts'],
    [['demo', '--tag', 'UPPER'], '--tag: must be 1-12 lowercase letters or digits'],
    [['start', '--dynamodb-port', '70000'], '--dynamodb-port: must be a port number from 0 to 65535'],
    [['start', '--pollers', '0'], '--pollers: must be at least 1'],
    [['ls', '--region', 'mars'], '--region: must be a region such as eu-west-1'],
    [['ls', '--region', 'eu-west-1'], '--jobs-table: is required when targeting AWS without --stack'],
    [
      ['counts', '--jobs-table', 'jobs', '--payloads-table', 'payloads', '--queue-url', 'http://q/1/jobs'],
      '--deadline-shards: is required when targeting AWS without --stack',
    ],
    [['ls', '--deadline-shards', '0'], '--deadline-shards: must be at least 1'],
    [['ls', '--deadline-shards', '1001'], '--deadline-shards: must be at most 1000'],
    [['ls', '--stack', 'Prod', '--deadline-shards', '8'], '--deadline-shards: comes from the stack with --stack'],
  ])('%j is a usage error (exit 2) naming the argument', async (argv, message) => {
    const io = captureIo();
    expect(await main(argv, io)).toBe(2);
    expect(io.stderr()).toContain(message);
  });

  it('splits one tenant/operation argument at the first slash (operation ids may contain "/")', async () => {
    const io = captureIo();
    // parses fine, then fails on the missing stack: exit 1, not 2
    expect(await main(['show', 'acme/statements/2026/09'], io)).toBe(1);
    expect(io.stderr()).toContain('no local stack is running');
  });

  it('start refuses to run twice on one folder (exit 1) and leaves no signal handler behind', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'leasefence-twice-'));
    const listeners = process.listenerCount('SIGINT');
    try {
      await writeStackState(dir, {
        version: 1,
        pid: process.pid,
        startedAt: new Date(0).toISOString(),
        memory: true,
        region: 'us-east-1',
        endpoints: { dynamodb: 'http://127.0.0.1:1', sqs: 'http://127.0.0.1:2', admin: 'http://127.0.0.1:3' },
        tables: { jobs: 'jobs', payloads: 'payloads', examples: 'examples' },
        queues: { jobs: 'http://q/1/jobs', deadLetter: 'http://q/1/dlq' },
        settings: { deadlineShards: 32 },
        jobs: { source: 'examples', types: ['statement-publication'] },
      });
      const io = captureIo();
      expect(await main(['start', '--memory', '--local-dir', dir], io)).toBe(1);
      expect(io.stderr()).toContain(`a local stack is already running (pid ${process.pid}`);
      expect(process.listenerCount('SIGINT')).toBe(listeners);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
