import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BundleSizes, bundleSizesOf, formatBundleSizes, writeBundleSizes } from '../../infra/app/bundle-size.js';
import { type SynthResult, synthLeasefenceApp } from '../../infra/app/synth.js';
import { EnvironmentVariable } from '../../lib/config.js';
import { logicalIdOf, type Template } from './support/template-queries.js';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FUNCTIONS = ['worker', 'sweeper', 'admin'] as const;
/**
 * Budget per bundle (minified code; the AWS SDK comes from the runtime by default), about 2–3 % above each size
 * measured with the construct's settings (worker 224.1 kB, its example payload schemas in zod/mini like
 * lib/; sweeper 150.6 kB and admin 176.0 kB, BENCHMARKS.md figure 5), so growth fails here; issue #29's worker
 * target, 120 kB, is not reached (the rules floor alone is 75.3 kB, figure 5). Admin: 178.5 kB after issue #40
 * item 7 (erasure's DLQ pass, erasure by operation, pseudonymised audit records), 179.2 kB more with issue #43's
 * approver's payload read (a route with its store read); issue #39's approval
 * records (the worker opens and checks them, the admin decides them) took the worker to 229.3 kB and the admin
 * another 0.2 kB (no work at module load, test/infra/init-path.test.ts); issue #41's fault switch 236.2 kB (the
 * fault layer itself is left out of a worker without faultInjection). Issue #46's per-function facets (the worker
 * builds WorkItemStore, the sweeper SweeperStore, the admin OperatorStore), measured by this test on main 57e4113
 * and after, same node_modules: worker 236.2 → 209.2 kB, sweeper 160.5 → 147.3 kB, admin 190.1 → 190.3 kB (main's
 * sweeper and admin were already above their 154 and 184 kB budgets); budgets reset about 2.5 % above them. Then
 * issue #43's tracing hooks (the OpenTelemetry API external, its adapter loaded on first use) and issue #44's
 * statement bound: worker 215.5, sweeper 148.2, admin 193.3 kB; budgets about 2 % above those. Issue #46 item 2's
 * first-use loaders (the successors' completion and the approval gate import()ed): worker 216.2 kB (esbuild's lazy
 * initialisers), sweeper and admin unchanged. Issue #40's erasure ids, issue #42's flow control and the first-use
 * loaders together took main 2f63470 to worker 221.6, sweeper 151.4, admin 198.1 kB (over budget; the same metafile
 * compared with 6b018a0's, same node_modules); then erasure became the admin's own facet (OperatorStore's
 * `erasure`: -6.4 kB sweeper), the store's flow-control facet (`store.flow()`), the limits' schemas and the
 * runtime's rate and slot paths were defined out without `flowControl`: worker 219.2, sweeper 144.2, admin 197.3 kB
 * (a worker with `flowControl` 239.0 kB, unchanged). Then the CLI's identifier-key loader (a secret's ARN region,
 * shared with the admin function): admin 197.7 kB. Budgets reset about 2 % above what each function runs today:
 * worker 219.5 kB (unchanged budget), sweeper 144.6 kB (lowered to 147.5), admin 197.7 kB (raised to 201.5: the
 * erasure of quarantine and audit ids the admin runs, +3.3 kB). Issue #42's operability round (flow-gaps): the admin
 * reads rate budgets and their waiters for `GET /limits?provider=` (+3.7 kB: readLimits' budgets, the budget reads and
 * waiter Query, the scope value; measured against main 66e1f7f, same node_modules: 200.2 → 203.9 kB), budget raised to
 * 205.5; the worker without flow control +0.4 kB (the RateLimitWaitSeconds name, the lane helper and minifier
 * renames: 219.9 → 220.3 kB), budget raised to 220.5. Issue #46's last round: no bundled module behind `import()`
 * any more (esbuild wrapped each and all it imports in lazy initialisers; lib/config.ts): worker 220.4 → 215.6 kB,
 * sweeper 145.4 → 144.7, admin 203.8 → 202.5 kB, a worker with `flowControl` 241.6 → 235.5 kB; the worker's budget
 * lowered to 220.0 (2 % above).
 */
const CODE_BUDGET_BYTES: Record<(typeof FUNCTIONS)[number], number> = {
  worker: 220_000,
  sweeper: 147_500,
  admin: 205_500,
};

let programmatic: SynthResult;
let cli: { outdir: string; template: Template; validationReport: { pluginReports: Array<{ violations: unknown[] }> } };
let sizes: BundleSizes;

/** Runs `cdk synth` as `npm run synth` does (cdk.json → infra/app/app.ts, cdk-nag on), offline, minus metadata. */
function cdkSynth(): typeof cli {
  const outdir = mkdtempSync(join(tmpdir(), 'leasefence-synth-'));
  const run = spawnSync(
    join(REPO_ROOT, 'node_modules/.bin/cdk'),
    [
      'synth',
      '--quiet',
      '--no-notices',
      '--no-version-reporting',
      '--no-path-metadata',
      '--no-asset-metadata',
      '-o',
      outdir,
    ],
    {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      env: { ...process.env, CDK_DISABLE_CLI_TELEMETRY: 'true', AWS_EC2_METADATA_DISABLED: 'true' },
    },
  );
  if (run.status !== 0) throw new Error(`cdk synth failed (${run.status}):\n${run.stderr.slice(-2000)}`);
  const read = (file: string) => JSON.parse(readFileSync(join(outdir, file), 'utf8'));
  return { outdir, template: read('Leasefence.template.json'), validationReport: read('validation-report.json') };
}

beforeAll(() => {
  // Two synths of the same app: in this process, and through the CDK CLI in another one.
  programmatic = synthLeasefenceApp({ checks: false });
  cli = cdkSynth();
  sizes = bundleSizesOf(programmatic.stack.jobs);
});

afterAll(() => {
  for (const dir of [programmatic?.outdir, cli?.outdir]) if (dir) rmSync(dir, { recursive: true, force: true });
});

/** What the Lambda service itself would provide; no credentials are needed to load a module. */
const FAKE_AWS_ENVIRONMENT = { AWS_REGION: 'us-east-1', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };

/** The function's environment from the template, with CloudFormation references replaced by plausible values. */
function lambdaEnvironment(name: (typeof FUNCTIONS)[number]): Record<string, string> {
  const resource = (programmatic.template as Template).Resources[
    logicalIdOf(programmatic.stack, programmatic.stack.jobs[name])
  ];
  const environment = resource?.Properties?.Environment as { Variables: Record<string, unknown> } | undefined;
  const variables = environment?.Variables ?? {};
  const urls: string[] = [EnvironmentVariable.queueUrl, EnvironmentVariable.deadLetterQueueUrl];
  const plausible = (key: string) => {
    if (urls.includes(key)) return `https://sqs.us-east-1.amazonaws.com/123456789012/${key}`;
    if (key === EnvironmentVariable.identifierKeySecretArn) {
      return 'arn:aws:secretsmanager:us-east-1:123456789012:secret:leasefence-identifier-key-AbCdEf';
    }
    return `resolved-${key}`;
  };
  return Object.fromEntries(
    Object.entries(variables).map(([key, value]) => [key, typeof value === 'string' ? value : plausible(key)]),
  );
}

/** The S3 object key (= content hash) of a function's code asset. */
function codeKey(template: Template, name: (typeof FUNCTIONS)[number]): string {
  const resource = template.Resources[logicalIdOf(programmatic.stack, programmatic.stack.jobs[name])];
  return String((resource?.Properties?.Code as { S3Key?: string } | undefined)?.S3Key);
}

describe('synthesis', () => {
  it('`cdk synth` runs offline with cdk-nag and the CloudFormation rules, and reports nothing', () => {
    expect(cli.validationReport.pluginReports.flatMap((plugin) => plugin.violations)).toEqual([]);
  });

  it('is deterministic: both synths give byte-identical templates, asset hashes included', () => {
    expect(cli.outdir).not.toBe(programmatic.outdir);
    expect(JSON.stringify(cli.template)).toBe(JSON.stringify(programmatic.template));
    for (const name of FUNCTIONS)
      expect(codeKey(cli.template, name)).toBe(codeKey(programmatic.template as Template, name));
  });

  it('gives each function its own bundle, addressed by a content hash', () => {
    const keys = FUNCTIONS.map((name) => codeKey(programmatic.template as Template, name));
    for (const key of keys) expect(key).toMatch(/^[0-9a-f]{64}\.zip$/);
    expect(new Set(keys).size).toBe(FUNCTIONS.length);
  });

  it.each(FUNCTIONS)('%s bundle is a minified ESM module with a source map that loads and exports handler', (name) => {
    const key = codeKey(programmatic.template as Template, name).replace(/\.zip$/, '');
    const dir = join(programmatic.outdir, `asset.${key}`);
    expect(existsSync(join(dir, 'index.mjs.map'))).toBe(true);
    const code = readFileSync(join(dir, 'index.mjs'), 'utf8');
    expect(code.startsWith("import { createRequire } from 'node:module';")).toBe(true);
    // lib/ validates with zod/mini (constructor names kept by keepNames: "ZodMiniObject", classic's "ZodObject"):
    // classic zod would come in only through a job module, and the examples' payload schemas are zod/mini too.
    expect(code).toContain('"ZodMiniObject"');
    expect(code).not.toContain('"ZodObject"');
    // Pay for what you use: a worker synthesized without faultInjection bundles no fault layer (a fault kind's name
    // is the layer's own string), as the construct defines it out (lib/lambda/fault-switch.ts).
    if (name === 'worker') expect(code).not.toContain('pause-after-claim');
    // The nodejs22.x runtime provides AWS SDK v3 and nothing else; here the repository's SDK stands in for it.
    const sdkOnly = mkdtempSync(join(tmpdir(), 'leasefence-runtime-sdk-'));
    mkdirSync(join(sdkOnly, 'node_modules'));
    for (const scope of ['@aws-sdk', '@smithy']) {
      symlinkSync(join(REPO_ROOT, 'node_modules', scope), join(sdkOnly, 'node_modules', scope));
    }
    cpSync(dir, join(sdkOnly, 'task'), { recursive: true });
    const script = 'const m = await import(process.argv[1]); console.log(typeof m.handler);';
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script, join(sdkOnly, 'task', 'index.mjs')], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, ...lambdaEnvironment(name), ...FAKE_AWS_ENVIRONMENT },
    });
    const stderrTail = run.stderr.split('\n').filter(Boolean).slice(-4).join('\n').slice(-600);
    rmSync(sdkOnly, { recursive: true, force: true });
    expect({ status: run.status, stdout: run.stdout.trim(), stderrTail: run.status === 0 ? '' : stderrTail }).toEqual({
      status: 0,
      stdout: 'function',
      stderrTail: '',
    });
  });

  it('records the bundle sizes (outside ./cdk.out)', () => {
    const line = formatBundleSizes(sizes);
    const report = writeBundleSizes(sizes, mkdtempSync(join(tmpdir(), 'leasefence-bundle-sizes-')));
    console.log(`${line} (${report})`);
    expect(report.startsWith(tmpdir())).toBe(true);
    expect(JSON.parse(readFileSync(report, 'utf8'))).toEqual(sizes);
    expect(line).toMatch(/^bundle-size worker=\d+ sweeper=\d+ admin=\d+$/);
    for (const name of FUNCTIONS) {
      expect(sizes[name].codeBytes).toBeGreaterThan(10_000);
      expect(sizes[name].codeBytes).toBeLessThan(CODE_BUDGET_BYTES[name]);
    }
  });
});
