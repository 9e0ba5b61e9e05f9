import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/cli-runner.js';
import { docSnippets, type InstallLine, readmeInstallLines } from '../support/doc-snippets.js';

const run = promisify(execFile);

/** Scripts npm runs when a package is installed: the published manifest must have none of them. */
const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall', 'prepare'] as const;

/** The version this repository's lock file installed, so the consumer's install is served from npm's cache. */
async function lockedVersion(name: string): Promise<string> {
  const manifest = JSON.parse(await readFile(join(ROOT, 'node_modules', name, 'package.json'), 'utf8'));
  return `${name}@${manifest.version}`;
}

/** One README install line as npm arguments: leasefence is the tarball, every other package its locked version. */
async function installArguments(line: InstallLine, tarball: string): Promise<string[]> {
  const packages = await Promise.all(
    line.packages.map((name) => (name === 'leasefence' ? Promise.resolve(tarball) : lockedVersion(name))),
  );
  return ['install', '--no-audit', '--no-fund', '--prefer-offline', ...(line.dev ? ['--save-dev'] : []), ...packages];
}

/**
 * A consumer's project beside the docs' snippets: a plain-JS job and worker (for the CDK bundle), a CDK app,
 * a file importing every subpath, a file that throws inside leasefence, and a producer for the local stack.
 */
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
  'import.mjs': `const root = await import('leasefence');
const cdk = await import('leasefence/cdk');
const testing = await import('leasefence/testing');
const manifest = (await import('leasefence/package.json', { with: { type: 'json' } })).default;
const keys = (module) => Object.keys(module).sort();
console.log(JSON.stringify({ root: keys(root), cdk: keys(cdk), testing: keys(testing), version: manifest.version }));
`,
  'typed.ts': `import * as root from 'leasefence';
import { FencedJobQueue, type FencedJobQueueProps } from 'leasefence/cdk';
import * as testing from 'leasefence/testing';
import * as z from 'zod';
const job: root.JobDefinition<{ n: number }> = root.defineJob({
  type: 'typed', version: 1, target: 'B', payload: z.object({ n: z.number() }),
  run: async () => ({ outcomeCode: 'ok' }),
});
const props: FencedJobQueueProps = { workerEntry: 'worker.mjs' };
const clients: Promise<testing.LocalStackClients> = testing.localStackClients({ localDir: '.local' });
export { clients, FencedJobQueue, job, props };
`,
  // A definition defineJob refuses (class C needs reconcile): the error is thrown inside leasefence.
  'trace.mjs': `import * as z from 'zod';
import { defineJob } from 'leasefence';
try {
  defineJob({ type: 'bad', version: 1, target: 'C', payload: z.object({}), run: async () => ({ outcomeCode: 'x' }) });
} catch (error) {
  console.log(error.stack);
}
`,
  // The docs' jobs module plus a job that refuses for good: its TerminalJobError comes from this project's import
  // of leasefence, loaded by \`start\` through tsx, and must be recognised by the stack's worker as one.
  'local-jobs.ts': `import { defineJob, TerminalJobError } from 'leasefence';
import * as z from 'zod';
import { jobs as documented, tables } from './src/jobs.js';
const refuses = defineJob({
  type: 'refuses', version: 1, target: 'B', payload: z.strictObject({}),
  run: async () => {
    throw new TerminalJobError('refused_by_job', 'this job always refuses');
  },
});
export { tables };
export const jobs = [...documented, refuses];
`,
  // The producer of the docs, against the stack \`leasefence start\` runs here.
  'send.mjs': `import { sendJob } from 'leasefence';
import { localStackClients } from 'leasefence/testing';
const local = await localStackClients();
const sent = await sendJob(local.producer, { tenantId: 'acme', operationId: 'greet-1', jobType: 'greet', payload: { name: 'Ada' } });
await sendJob(local.producer, { tenantId: 'acme', operationId: 'refuses-1', jobType: 'refuses', payload: {} });
local.destroy();
console.log(JSON.stringify(sent));
`,
  // What a TypeScript project has: strict, and the library checks on (skipLibCheck: false).
  'tsconfig.json': JSON.stringify({
    compilerOptions: {
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      target: 'ES2022',
      strict: true,
      noEmit: true,
      skipLibCheck: false,
    },
    include: ['**/*.ts'],
    exclude: ['node_modules', 'cdk.out'],
  }),
};

/**
 * A `leasefence start` child of the consumer's project (the installed bin run by node, so the signal reaches it:
 * npx does not forward one): its output so far, waiting for a line, stopping it.
 */
function startInProject(project: string, args: readonly string[]) {
  const bin = join(project, 'node_modules', '.bin', 'leasefence');
  const child: ChildProcess = spawn(process.execPath, [bin, 'start', ...args], {
    cwd: project,
    env: { ...process.env },
  });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += String(chunk);
  });
  child.stderr?.on('data', (chunk) => {
    output += String(chunk);
  });
  const exited = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
  return {
    output: () => output,
    waitFor: async (pattern: RegExp, timeoutMs = 120_000) => {
      const deadline = Date.now() + timeoutMs;
      while (!pattern.test(output)) {
        if (child.exitCode !== null || Date.now() > deadline) throw new Error(`no ${pattern} in:\n${output}`);
        await new Promise((wait) => setTimeout(wait, 100));
      }
    },
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGINT');
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/**
 * Proof that leasefence works as an installed package: pack the repository, install the tarball into a fresh
 * project outside the repository with the README's install lines and nothing else, then use it the way the docs
 * say — no AWS account, nothing but the package registry.
 */
describe('the packed tarball, installed into a fresh project with the README install lines only', () => {
  let work: string;
  let project: string;
  let tarball: string;
  let installOutput = '';
  let startWithoutEngines: { code: number; stderr: string };
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
    for (const snippet of docSnippets()) {
      await mkdir(dirname(join(project, snippet.path)), { recursive: true });
      await writeFile(join(project, snippet.path), snippet.code);
    }
    const lines = readmeInstallLines(await readFile(join(ROOT, 'README.md'), 'utf8'));
    const engines = lines.findIndex((line) => line.packages.includes('dynalite'));
    for (const [index, line] of lines.entries()) {
      // Before the engines' line, `start` must say what to install (a user who skipped that line).
      if (index === engines) {
        const args = [
          'start',
          '--memory',
          '--dynamodb-port',
          '0',
          '--sqs-port',
          '0',
          '--admin-port',
          '0',
          '--console-port',
          '0',
        ];
        startWithoutEngines = await inProject('npx', ['--no-install', 'leasefence', ...args]).then(
          () => ({ code: 0, stderr: '' }),
          (error: { code: number; stderr: string }) => error,
        );
      }
      const { stdout, stderr } = await inProject('npm', await installArguments(line, tarball));
      installOutput += stdout + stderr;
    }
  }, 900_000);
  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('ships dist/, the sources its maps point to, the producer contract, READMEs and LICENSE: no tests, no install scripts', async () => {
    const { stdout } = await run('tar', ['-tzf', tarball]);
    const files = stdout.split('\n').filter(Boolean);
    const installed = JSON.parse(await readFile(join(project, 'node_modules/leasefence/package.json'), 'utf8'));
    expect(
      files.filter(
        (file) => !/^package\/(dist|lib|functions|examples|infra|schema|docs)\/|^package\/[\w.]+$/.test(file),
      ),
    ).toEqual([]);
    for (const expected of [
      'dist/lib/index.js',
      'dist/lib/index.d.ts',
      'dist/infra/cli/bin.js',
      'lib/index.ts',
      // The producer contract (docs/PRODUCERS.md): the envelope schema, the vectors, the Python reference producer.
      'schema/envelope.schema.json',
      'schema/test-vectors.json',
      'docs/PRODUCERS.md',
      'examples/producers/python/leasefence_producer.py',
    ]) {
      expect(files).toContain(`package/${expected}`);
    }
    expect(files.filter((file) => /\/test\/|\.test\.|tsbuildinfo/.test(file))).toEqual([]);
    expect(INSTALL_SCRIPTS.filter((name) => installed.scripts?.[name] !== undefined)).toEqual([]);
    expect(installOutput).not.toMatch(/install-scripts[^\n]*leasefence@/);
  });

  it('resolves every source map entry to a file in the package', async () => {
    const root = join(project, 'node_modules', 'leasefence');
    const maps = (await readdir(join(root, 'dist'), { recursive: true })).filter((file) => file.endsWith('.map'));
    const missing: string[] = [];
    for (const map of maps) {
      const { sources } = JSON.parse(await readFile(join(root, 'dist', map), 'utf8')) as { sources: string[] };
      for (const source of sources) {
        if (!existsSync(join(root, 'dist', dirname(map), source))) missing.push(`${map}: ${source}`);
      }
    }
    expect(maps.length).toBeGreaterThan(100);
    expect(missing).toEqual([]);
  });

  it('prints a stack trace through leasefence that points at its shipped TypeScript sources', async () => {
    const { stdout } = await inProject('node', ['--enable-source-maps', 'trace.mjs']);
    const frames = [...stdout.matchAll(/\((\/[^)]*node_modules\/leasefence\/[^)]+):(\d+):\d+\)/g)].map((match) => ({
      file: match[1] as string,
      line: Number(match[2]),
    }));
    expect(stdout).toContain('reconcile');
    expect(frames.length).toBeGreaterThan(0);
    for (const frame of frames) {
      expect(frame.file).toMatch(/\/node_modules\/leasefence\/lib\/.+\.ts$/);
      const lines = (await readFile(frame.file, 'utf8')).split('\n').length;
      expect(frame.line).toBeLessThanOrEqual(lines);
    }
  });

  it('imports every subpath from plain Node ESM: the root, leasefence/cdk, leasefence/testing, package.json', async () => {
    const { stdout } = await inProject('node', ['import.mjs']);
    const exported = JSON.parse(stdout) as { root: string[]; cdk: string[]; testing: string[]; version: string };
    for (const name of ['defineJob', 'createSqsWorkerHandler', 'createSweeperHandler', 'createAdminHandler']) {
      expect(exported.root).toContain(name);
    }
    expect(exported.root).toEqual(expect.arrayContaining(['sendJob', 'LeasefenceError', 'PayloadStore']));
    expect(exported.cdk).toContain('FencedJobQueue');
    expect(exported.testing).toEqual(expect.arrayContaining(['describeJobConformance', 'localStackClients']));
    expect(exported.version).toBe(JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')).version);
  });

  it("type-checks the docs' snippets and a file using every subpath with skipLibCheck: false (tsc --noEmit)", async () => {
    const compiled = await inProject('npx', ['--no-install', 'tsc', '--noEmit', '-p', 'tsconfig.json']).then(
      () => ({ code: 0, output: '' }),
      (error: { code: number; stdout: string }) => ({ code: error.code, output: error.stdout }),
    );
    expect(compiled.output).toBe('');
    expect(compiled.code).toBe(0);
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

  it('runs the bin: --help, --version, and says what `start` needs when the engines line was skipped', async () => {
    const [help, version] = await Promise.all([
      inProject('npx', ['--no-install', 'leasefence', '--help']),
      inProject('npx', ['--no-install', 'leasefence', '--version']),
    ]);
    expect(help.stdout).toContain('usage: leasefence <command>');
    expect(version.stdout.trim()).toBe(JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')).version);
    const bin = join(project, 'node_modules', 'leasefence', 'dist', 'infra', 'cli', 'bin.js');
    expect((await readFile(bin, 'utf8')).startsWith('#!/usr/bin/env node')).toBe(true);
    expect(startWithoutEngines.code).toBe(1);
    expect(startWithoutEngines.stderr).toContain('npm install --save-dev dynalite@^4 fauxqs@^1');
  });

  it("`start --jobs` runs the user's TypeScript jobs with the console, and the docs' producer reaches it", async () => {
    // prepare: the jobs module of infra/README.md (and one more job), on free ports
    const ports = ['--dynamodb-port', '0', '--sqs-port', '0', '--admin-port', '0', '--console-port', '0'];
    const stack = startInProject(project, ['--memory', '--jobs', 'local-jobs.ts', ...ports]);
    try {
      await stack.waitFor(/Stop with Ctrl-C/);

      // act: send a job with localStackClients + sendJob, then read it back through the stack's admin API
      const sent = await inProject('node', ['send.mjs']);
      const { endpoints } = JSON.parse(await readFile(join(project, '.local', 'stack.json'), 'utf8'));
      const settled = async (operationId: string) => {
        for (let tries = 0; ; tries += 1) {
          const { item } = (await (await fetch(`${endpoints.admin}/items/acme/${operationId}`)).json()) as {
            item?: { state: string };
          };
          if (tries >= 600 || (item && ['succeeded', 'failed_terminal', 'unknown'].includes(item.state))) return item;
          await new Promise((wait) => setTimeout(wait, 100));
        }
      };
      const greeted = await settled('greet-1');
      const refused = await settled('refuses-1');

      // assert: the banner describes this module only; the console runs; the job ran
      const banner = stack.output();
      expect(banner).toMatch(/console +http:\/\/127\.0\.0\.1:\d+\//);
      expect(banner).toMatch(/worker +runs local-jobs\.ts \(greet, refuses\)/);
      expect(banner).toMatch(/tables +leasefence-jobs, leasefence-payloads, greetings/);
      expect(banner).not.toMatch(
        /undefined|not started|leasefence-examples|inventory-reservation|statement-publication/,
      );
      expect(JSON.parse(sent.stdout)).toMatchObject({ payloadStored: 'stored' });
      expect(greeted).toMatchObject({ state: 'succeeded', outcomeCode: 'greeted' });
      expect(refused).toMatchObject({ state: 'failed_terminal', errorCode: 'refused_by_job', attempts: 1 });
    } finally {
      expect(await stack.stop()).toBe(0);
    }
  }, 600_000);
});
