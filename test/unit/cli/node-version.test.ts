import { spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../../infra/cli/main.js';
import { MIN_NODE_MAJOR } from '../../../infra/cli/node-version.js';
import { ROOT } from '../../support/cli-runner.js';
import { captureIo } from './io.js';

describe('the CLI on a Node.js older than engines allows', () => {
  it('warns at start on Node 20, says nothing on the supported line, and still runs the command', async () => {
    // act
    const old = captureIo();
    const oldCode = await main(['--help'], old, '20.19.0');
    const supported = captureIo();
    const supportedCode = await main(['--help'], supported, '22.23.3');

    // assert
    expect(old.stderr()).toContain('Node.js 20.19.0 is older than leasefence supports (>= 22');
    expect(oldCode).toBe(0);
    expect(supported.stderr()).toBe('');
    expect(supportedCode).toBe(0);
  });

  it('agrees with package.json engines', async () => {
    const manifest = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
    expect(manifest.engines.node).toBe(`>=${MIN_NODE_MAJOR}`);
  });

  it('a real Node 20 running the bin prints the warning (skipped without one on the machine)', (context) => {
    // prepare: the machine's own node, when it is older than the supported line
    const probe = spawnSync('/usr/bin/node', ['--version'], { encoding: 'utf8' });
    const major = Number.parseInt(probe.stdout?.replace(/^v/, '') ?? '', 10);
    if (probe.status !== 0 || !(major < MIN_NODE_MAJOR)) {
      context.skip(`no Node.js older than ${MIN_NODE_MAJOR} at /usr/bin/node`);
    }

    // act
    const run = spawnSync('/usr/bin/node', ['--import', 'tsx', join(ROOT, 'infra/cli/bin.ts'), '--version'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    });

    // assert
    expect(run.stderr).toContain(`Node.js ${probe.stdout.trim().replace(/^v/, '')} is older than leasefence supports`);
    expect(run.status).toBe(0);
  });
});
