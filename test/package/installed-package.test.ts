import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/cli-runner.js';

const run = promisify(execFile);

/** The version this repository's lock file installed, so the consumer's install is served from npm's cache. */
async function lockedVersion(name: string): Promise<string> {
  const manifest = JSON.parse(await readFile(join(ROOT, 'node_modules', name, 'package.json'), 'utf8'));
  return `${name}@${manifest.version}`;
}

/** A consumer's project: one job, a worker entry, a CDK app and a type-checked file, all importing the package. */
const CONSUMER_FILES: Record<string, string> = {
  'package.json': JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
  'jobs.mjs': `import * as z from 'zod';
import { defineJob } from 'leasefence';
export const greetJob = defineJob({
  type: 'greet', version: 1, target: 'B', payload: z.object({ name: z.string() }),
  run: async () => ({ outcomeCode: 'greeted' }),
});
export const jobs = [greetJob];
`,
  'worker.mjs': `import { createSqsWorkerHandler } from 'leasefence';
import { jobs } from './jobs.mjs';
export const handler = createSqsWorkerHandler({ jobs });
`,
  'app.mjs': `import { App, Stack } from 'aws-cdk-lib';
import { FencedJobQueue } from 'leasefence/cdk';
const app = new App({ outdir: 'cdk.out' });
const stack = new Stack(app, 'Consumer');
const queue = new FencedJobQueue(stack, 'Jobs', { workerEntry: 'worker.mjs' });
const assembly = app.synth();
const template = assembly.getStackByName('Consumer').template;
const functions = Object.values(template.Resources).filter((resource) => resource.Type === 'AWS::Lambda::Function');
console.log(JSON.stringify({ functions: functions.length, worker: queue.worker.node.path }));
`,
  'import.mjs': `const leasefence = await import('leasefence');
const testing = await import('leasefence/testing');
console.log(JSON.stringify({ root: Object.keys(leasefence).sort(), testing: Object.keys(testing).sort() }));
`,
  'typed.ts': `import { defineJob, type JobDefinition } from 'leasefence';
import { FencedJobQueue, type FencedJobQueueProps } from 'leasefence/cdk';
import * as z from 'zod';
const job: JobDefinition<{ n: number }> = defineJob({
  type: 'typed', version: 1, target: 'B', payload: z.object({ n: z.number() }),
  run: async () => ({ outcomeCode: 'ok' }),
});
const props: FencedJobQueueProps = { workerEntry: 'worker.mjs' };
export { FencedJobQueue, job, props };
`,
  'tsconfig.json': JSON.stringify({
    compilerOptions: {
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      target: 'ES2022',
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      types: [],
    },
    files: ['typed.ts'],
  }),
};

/**
 * Proof that leasefence works as an installed package: pack the repository, install the tarball into a fresh
 * project outside the repository with only its peer dependencies (and esbuild, which CDK's NodejsFunction uses
 * to bundle), then use it the way the README says — no AWS account, nothing but the package registry.
 */
describe('the packed tarball, installed into a fresh project', () => {
  let work: string;
  let project: string;
  let tarball: string;
  const inProject = (command: string, args: string[], env: NodeJS.ProcessEnv = {}) =>
    run(command, args, { cwd: project, env: { ...process.env, ...env }, maxBuffer: 32 * 1024 * 1024 });

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'leasefence-package-'));
    project = join(work, 'consumer');
    await mkdir(project);
    await run('npm', ['pack', '--silent', '--pack-destination', work], { cwd: ROOT, maxBuffer: 32 * 1024 * 1024 });
    const packed = (await readdir(work)).find((name) => name.endsWith('.tgz'));
    if (!packed) throw new Error('npm pack wrote no tarball');
    tarball = join(work, packed);
    for (const [name, text] of Object.entries(CONSUMER_FILES)) await writeFile(join(project, name), text);
    const peers = await Promise.all(
      [
        '@aws-sdk/client-dynamodb',
        '@aws-sdk/client-secrets-manager',
        '@aws-sdk/client-sqs',
        '@aws-sdk/lib-dynamodb',
        '@aws-sdk/util-dynamodb',
        'aws-cdk-lib',
        'constructs',
        'esbuild',
      ].map(lockedVersion),
    );
    await inProject('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball, ...peers]);
  }, 600_000);
  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('ships dist/, README and LICENSE only: compiled JavaScript with declarations and source maps, no tests', async () => {
    const { stdout } = await run('tar', ['-tzf', tarball]);
    const files = stdout.split('\n').filter(Boolean);
    expect(files.every((file) => /^package\/(dist\/|README\.md$|LICENSE$|package\.json$)/.test(file))).toBe(true);
    for (const expected of ['lib/index.js', 'lib/index.d.ts', 'lib/index.js.map', 'infra/cli/bin.js']) {
      expect(files).toContain(`package/dist/${expected}`);
    }
    const sources = files.filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'));
    expect(sources).toEqual([]);
    expect(files.filter((file) => file.includes('/test/'))).toEqual([]);
  });

  it('imports from plain Node ESM: the root and leasefence/testing', async () => {
    const { stdout } = await inProject('node', ['import.mjs']);
    const exported = JSON.parse(stdout) as { root: string[]; testing: string[] };
    for (const name of ['defineJob', 'createSqsWorkerHandler', 'createSweeperHandler', 'createAdminHandler']) {
      expect(exported.root).toContain(name);
    }
    expect(exported.root).toContain('sendJob');
    expect(exported.root).toContain('LeasefenceError');
    expect(exported.testing.length).toBeGreaterThan(0);
  });

  it('type-checks a file importing leasefence and leasefence/cdk through the package exports', async () => {
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    await expect(inProject(process.execPath, [tsc, '-p', 'tsconfig.json'])).resolves.toBeDefined();
  });

  it("synthesizes a CDK stack with leasefence/cdk and the consumer's job as the worker entry (bundled by esbuild)", async () => {
    const { stdout } = await inProject('node', ['app.mjs']);
    expect(JSON.parse(stdout)).toMatchObject({ functions: 3 });
    const assets = (await readdir(join(project, 'cdk.out'))).filter((name) => name.startsWith('asset.'));
    expect(assets.length).toBeGreaterThanOrEqual(3);
    const bundles = await Promise.all(
      assets.map((asset) => readFile(join(project, 'cdk.out', asset, 'index.mjs'), 'utf8').catch(() => '')),
    );
    // The worker bundle carries the consumer's job type and leasefence's runtime, not a reference to the package.
    expect(bundles.some((code) => code.includes('greet') && code.includes('outcomeCode'))).toBe(true);
  }, 300_000);

  it('runs `npx leasefence --help` with node, and says how to add the engines that `start` needs', async () => {
    const help = await inProject('npx', ['--no-install', 'leasefence', '--help']);
    expect(help.stdout).toContain('usage: leasefence <command>');
    const bin = join(project, 'node_modules', 'leasefence', 'dist', 'infra', 'cli', 'bin.js');
    expect(existsSync(bin)).toBe(true);
    expect((await readFile(bin, 'utf8')).startsWith('#!/usr/bin/env node')).toBe(true);
    const start = await inProject('npx', [
      '--no-install',
      'leasefence',
      'start',
      '--memory',
      '--jobs',
      'jobs.mjs',
    ]).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(start.code).toBe(1);
    expect(start.stderr).toContain('npm install --save-dev dynalite@^4 fauxqs@^1');
  });
});
