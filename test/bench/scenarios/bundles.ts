import { copyFileSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AssetStaging } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { build } from 'esbuild';
import { type BundleSizes, bundleSizesOf } from '../../../infra/app/bundle-size.js';
import { EXAMPLE_WORKER_ENTRY } from '../../../infra/app/stacks/leasefence-stack.js';
import { synthLeasefenceApp } from '../../../infra/app/synth.js';
import type { Baseline } from '../support/baseline.js';
import { type BundleComposition, measureComposition } from '../support/bundle-composition.js';
import type { ColdInvocation } from '../support/cold-invocation.js';
import { constructBundling } from '../support/construct-bundling.js';
import { HANDLER_ENVIRONMENT } from '../support/handler-environment.js';
import { type InitTarget, type InitTime, measureInitTimes } from '../support/init-time.js';
import { runName } from '../support/jobs.js';
import { RulesFloor, type RulesFloorName } from '../support/rules-floor.js';
import { nowMs } from '../support/stats.js';
import { measureColdInvocation } from './cold-invocation.js';

/** One function of figure 5: minified code bytes with the AWS SDK left to the runtime (the default) and bundled. */
interface BundleRow {
  name: 'worker' | 'sweeper' | 'admin' | 'powertools-idempotency' | SdkExternalOnlyName | BaselineLabel;
  sdkExternalBytes: number;
  /** Undefined for the bench worker and rules floor rows: only the default (SDK external) is built for them, to keep the smoke test cheap. */
  sdkBundledBytes: number | undefined;
  /** Module initialisation of the default bundle, the SDK resolved from node_modules as the runtime provides it. */
  initSdkExternal: InitTime | undefined;
  /** Module initialisation of the self-contained bundle (worker and peer only). */
  initSdkBundled: InitTime | undefined;
}

/** Figure 5 and how long producing it took. */
interface BundleReport {
  rows: BundleRow[];
  synthSeconds: number;
  /** Import + first handled SQS event, worker and peer (scenarios/cold-invocation.ts). */
  coldInvocation: ColdInvocation[];
  /** What the project's worker bundle and the peer's hold, by part (esbuild's metafile). */
  composition: BundleComposition[];
  /** With `--baseline=<commit>`: the commit whose worker has the row `worker @ <short sha>` (support/baseline.ts). */
  baseline?: { commit: string; label: BaselineLabel };
}

/** The row of a baseline commit's worker. */
type BaselineLabel = `worker @ ${string}`;

const PEER_ENTRY = fileURLToPath(new URL('../bundle/peer-handler.ts', import.meta.url));

/**
 * The bench job under the worker handler, its payload schema in zod classic and in zod/mini: what the bundle of a
 * user's job module weighs either way (the project's worker above bundles the examples, written with classic zod).
 */
const BENCH_WORKERS = {
  'bench worker, classic payload': fileURLToPath(new URL('../bundle/leasefence-handler.ts', import.meta.url)),
  'bench worker, mini payload': fileURLToPath(new URL('../bundle/leasefence-handler-mini.ts', import.meta.url)),
} as const;

/**
 * The floor the project's rules set (issue #29, support/rules-floor.ts): a function held to those rules cannot
 * import faster than these, so its init ÷ peer minus the floor's is leasefence's own share.
 */
const RULES_FLOORS: Record<RulesFloorName, string> = {
  [RulesFloor.worker]: fileURLToPath(new URL('../bundle/rules-floor.ts', import.meta.url)),
  [RulesFloor.plainClient]: fileURLToPath(new URL('../bundle/rules-floor-plain-client.ts', import.meta.url)),
};
/** The entries built only with the AWS SDK external: the bench workers, then the rules floors. */
const SDK_EXTERNAL_ONLY: Record<SdkExternalOnlyName, string> = { ...BENCH_WORKERS, ...RULES_FLOORS };
type SdkExternalOnlyName = keyof typeof BENCH_WORKERS | RulesFloorName;
/**
 * SDK-external bundles are timed from here, so `@aws-sdk/*` resolves to this repository's node_modules; a directory
 * of this run's own, removed at its end: node_modules may be shared by several checkouts, whose figure 9 runs keep
 * their bundles beside it (removing the whole cache directory broke them mid-run).
 */
const RESOLVABLE_DIR = join(
  fileURLToPath(new URL('../../../node_modules/.cache/leasefence-bench/', import.meta.url)),
  runName('bundles'),
);

/** The bundled file of a synthesized NodejsFunction (its staged `Code` asset). */
function stagedFile(fn: IFunction): string {
  const staging = fn.node
    .findAll()
    .find((child): child is AssetStaging => child instanceof AssetStaging && child.node.scope?.node.id === 'Code');
  if (!staging) throw new Error(`${fn.node.path} has no bundled code asset`);
  return join(staging.absoluteStagedPath, 'index.mjs');
}

/** Synthesizes the project stack (checks off: they do not change the bundles) and returns sizes and files. */
function synthBundles(bundleAwsSdk: boolean): {
  sizes: BundleSizes;
  files: Record<keyof BundleSizes, string>;
  outdir: string;
} {
  const { stack, outdir } = synthLeasefenceApp({ checks: false, stackProps: { jobs: { bundleAwsSdk } } });
  const jobs = stack.jobs;
  return {
    sizes: bundleSizesOf(jobs),
    files: { worker: stagedFile(jobs.worker), sweeper: stagedFile(jobs.sweeper), admin: stagedFile(jobs.admin) },
    outdir,
  };
}

/** Bundles a handler like the construct bundles ours; returns the file and its code bytes. */
async function bundleEntry(
  entry: string,
  dir: string,
  name: string,
  bundleAwsSdk: boolean,
): Promise<{ file: string; bytes: number }> {
  const file = join(dir, `${name.replace(/\W+/g, '-')}${bundleAwsSdk ? '-sdk-bundled' : '-sdk-external'}.mjs`);
  await build({ ...constructBundling(bundleAwsSdk), entryPoints: [entry], outfile: file });
  return { file, bytes: statSync(file).size };
}

/** Copies a bundle where bare imports resolve to this repository's node_modules (as a Lambda runtime's SDK would). */
function resolvable(file: string, name: string): string {
  mkdirSync(RESOLVABLE_DIR, { recursive: true });
  const target = join(RESOLVABLE_DIR, `${name}.mjs`);
  copyFileSync(file, target);
  return target;
}

/**
 * Figure 5: the three leasefence bundles (through the project's own CDK synth and infra/app/bundle-size.ts) and a
 * Powertools-idempotency SQS handler bundled the same way, with the AWS SDK external (the construct's default)
 * and bundled, and the bench workers and rules floors with the SDK external only; then the import time of each
 * bundle in fresh node processes. With a baseline, its commit's project worker too (the same settings, in the same
 * rounds), so today's ÷ the baseline's init is a paired ratio.
 */
async function measureBundles(options: { initRuns: number; baseline?: Baseline }): Promise<BundleReport> {
  const started = nowMs();
  const external = synthBundles(false);
  const bundled = synthBundles(true);
  const peerDir = mkdtempSync(join(tmpdir(), 'leasefence-bench-peer-'));
  try {
    const peerExternal = await bundleEntry(PEER_ENTRY, peerDir, 'peer', false);
    const peerBundled = await bundleEntry(PEER_ENTRY, peerDir, 'peer', true);
    const externalOnlyNames = Object.keys(SDK_EXTERNAL_ONLY) as SdkExternalOnlyName[];
    const externalOnly = await Promise.all(
      externalOnlyNames.map(async (name) => ({
        name,
        external: await bundleEntry(SDK_EXTERNAL_ONLY[name], peerDir, name, false),
      })),
    );
    const baseline = options.baseline;
    const baselineWorker = baseline
      ? await bundleEntry(baseline.workerEntry, peerDir, `baseline-${baseline.short}`, false)
      : undefined;
    const synthSeconds = (nowMs() - started) / 1000;
    const target = (name: string, file: string): InitTarget => ({ name, file, env: HANDLER_ENVIRONMENT });
    const targets: InitTarget[] = [
      target('worker', resolvable(external.files.worker, 'worker')),
      target('sweeper', resolvable(external.files.sweeper, 'sweeper')),
      target('admin', resolvable(external.files.admin, 'admin')),
      target('powertools-idempotency', resolvable(peerExternal.file, 'powertools-idempotency')),
      ...externalOnly.map((entry) =>
        target(entry.name, resolvable(entry.external.file, entry.name.replace(/\W+/g, '-'))),
      ),
      ...(baseline && baselineWorker
        ? [target(baseline.label, resolvable(baselineWorker.file, `baseline-${baseline.short}`))]
        : []),
      target('worker+sdk', bundled.files.worker),
      target('powertools-idempotency+sdk', peerBundled.file),
    ];
    const inits = measureInitTimes(targets, options.initRuns);
    const initOf = (name: string) => inits.find((init) => init.name === name);
    const rows: BundleRow[] = (['worker', 'sweeper', 'admin'] as const).map((name) => ({
      name,
      sdkExternalBytes: external.sizes[name].codeBytes,
      sdkBundledBytes: bundled.sizes[name].codeBytes,
      initSdkExternal: initOf(name),
      initSdkBundled: initOf(`${name}+sdk`),
    }));
    for (const entry of externalOnly) {
      rows.push({
        name: entry.name,
        sdkExternalBytes: entry.external.bytes,
        sdkBundledBytes: undefined,
        initSdkExternal: initOf(entry.name),
        initSdkBundled: undefined,
      });
    }
    if (baseline && baselineWorker) {
      rows.push({
        name: baseline.label as BaselineLabel,
        sdkExternalBytes: baselineWorker.bytes,
        sdkBundledBytes: undefined,
        initSdkExternal: initOf(baseline.label),
        initSdkBundled: undefined,
      });
    }
    rows.push({
      name: 'powertools-idempotency',
      sdkExternalBytes: peerExternal.bytes,
      sdkBundledBytes: peerBundled.bytes,
      initSdkExternal: initOf('powertools-idempotency'),
      initSdkBundled: initOf('powertools-idempotency+sdk'),
    });
    const composition = [
      await measureComposition('worker', EXAMPLE_WORKER_ENTRY),
      await measureComposition('powertools-idempotency', PEER_ENTRY),
    ];
    return {
      rows,
      synthSeconds,
      coldInvocation: await measureColdInvocation({ runs: options.initRuns }),
      composition,
      ...(baseline ? { baseline: { commit: baseline.commit, label: baseline.label as BaselineLabel } } : {}),
    };
  } finally {
    for (const dir of [peerDir, bundled.outdir, external.outdir, RESOLVABLE_DIR]) {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

export { type BaselineLabel, type BundleReport, type BundleRow, measureBundles };
