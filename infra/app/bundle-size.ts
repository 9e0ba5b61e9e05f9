import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AssetStaging } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { FencedJobQueue } from '../construct/fenced-job-queue.js';
import { type SynthOptions, synthLeasefenceApp } from './synth.js';

/** Bytes of one function bundle: the code Lambda loads and its source map. */
interface BundleSize {
  codeBytes: number;
  sourceMapBytes: number;
}

/** Bundle sizes of the three leasefence functions. */
type BundleSizes = Record<'worker' | 'sweeper' | 'admin', BundleSize>;

/** The staged (bundled) asset directory of a NodejsFunction, found through its `Code` asset. */
function stagedDirectory(fn: IFunction): string {
  const staging = fn.node
    .findAll()
    .find((child): child is AssetStaging => child instanceof AssetStaging && child.node.scope?.node.id === 'Code');
  if (!staging) throw new Error(`${fn.node.path} has no bundled code asset`);
  return staging.absoluteStagedPath;
}

function sizeOf(fn: IFunction): BundleSize {
  const dir = stagedDirectory(fn);
  let codeBytes = 0;
  let sourceMapBytes = 0;
  for (const file of readdirSync(dir)) {
    const bytes = statSync(join(dir, file)).size;
    if (file.endsWith('.map')) sourceMapBytes += bytes;
    else codeBytes += bytes;
  }
  return { codeBytes, sourceMapBytes };
}

/** Sizes of the bundles a synthesized FencedJobQueue staged. */
function bundleSizesOf(jobs: FencedJobQueue): BundleSizes {
  return { worker: sizeOf(jobs.worker), sweeper: sizeOf(jobs.sweeper), admin: sizeOf(jobs.admin) };
}

/** One line for logs and benchmarks: `bundle-size worker=… sweeper=… admin=…` (code bytes). */
function formatBundleSizes(sizes: BundleSizes): string {
  return `bundle-size worker=${sizes.worker.codeBytes} sweeper=${sizes.sweeper.codeBytes} admin=${sizes.admin.codeBytes}`;
}

/** Writes the sizes as `bundle-sizes.json` into a directory; returns the file path. */
function writeBundleSizes(sizes: BundleSizes, dir: string): string {
  const reportPath = join(dir, 'bundle-sizes.json');
  writeFileSync(reportPath, `${JSON.stringify(sizes, null, 2)}\n`);
  return reportPath;
}

/**
 * Synthesizes the project stack into a temp dir (not ./cdk.out), measures each bundle and writes
 * `bundle-sizes.json` next to the assembly.
 * @example
 * const { sizes } = measureBundleSizes();
 * console.log(formatBundleSizes(sizes));
 */
function measureBundleSizes(options: SynthOptions = {}): { sizes: BundleSizes; outdir: string; reportPath: string } {
  const { stack, outdir } = synthLeasefenceApp(options);
  const sizes = bundleSizesOf(stack.jobs);
  return { sizes, outdir, reportPath: writeBundleSizes(sizes, outdir) };
}

export { type BundleSize, type BundleSizes, bundleSizesOf, formatBundleSizes, measureBundleSizes, writeBundleSizes };
