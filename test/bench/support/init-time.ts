import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { type Interval, median, medianInterval, pairedRatio, pairedRatios, percentile } from './stats.js';

/** A bundle whose module initialisation is timed, with the environment its handler reads at import. */
interface InitTarget {
  name: string;
  file: string;
  env: Record<string, string>;
}

/** Median and p90 of the time `import()` of the bundle took, over fresh node processes. */
interface InitTime {
  name: string;
  medianMs: number;
  p90Ms: number;
  runs: number;
  /** Every run's time, in round order: run i of every bundle was taken in the same round. */
  samples: number[];
}

/** Runs in a fresh process: times one dynamic import (module evaluation, as a Lambda cold start pays it). */
const IMPORT_PROBE = [
  'const started = performance.now();',
  'await import(process.argv[1]);',
  'process.stdout.write(JSON.stringify({ ms: performance.now() - started }));',
].join('\n');

function importOnce(target: InitTarget): number {
  const result = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', IMPORT_PROBE, pathToFileURL(target.file).href],
    {
      env: { PATH: process.env.PATH ?? '', AWS_REGION: 'us-east-1', ...target.env },
      encoding: 'utf8',
      timeout: 60_000,
    },
  );
  if (result.status !== 0) throw new Error(`importing ${target.name} failed: ${result.stderr.slice(0, 500)}`);
  return (JSON.parse(result.stdout) as { ms: number }).ms;
}

/**
 * Module initialisation time of each bundle: `runs` fresh `node` processes per bundle, round-robin across the
 * bundles (so background load falls on all of them alike), every other round in reverse order (so no bundle always
 * runs right after the same one), after one discarded warm-up each (file cache).
 */
function measureInitTimes(targets: readonly InitTarget[], runs: number): InitTime[] {
  const samples = new Map<string, number[]>(targets.map((target) => [target.name, []]));
  for (const target of targets) importOnce(target);
  for (let round = 0; round < runs; round += 1) {
    const order = round % 2 === 0 ? targets : [...targets].reverse();
    for (const target of order) samples.get(target.name)?.push(importOnce(target));
  }
  return targets.map((target) => {
    const values = samples.get(target.name) ?? [];
    return {
      name: target.name,
      medianMs: median(values),
      p90Ms: percentile(values, 90),
      runs: values.length,
      samples: values,
    };
  });
}

/** Init of `mine` ÷ the peer's: the median of the per-round ratios (pairedRatio); undefined when either was not timed. */
function initRatio(mine: InitTime | undefined, peer: InitTime | undefined): number | undefined {
  return mine && peer ? pairedRatio(mine.samples, peer.samples) : undefined;
}

/**
 * The 95 % confidence interval of initRatio (medianInterval over the per-round ratios): how far this run's noise
 * lets the median move; undefined when either was not timed.
 */
function initRatioInterval(mine: InitTime | undefined, peer: InitTime | undefined): Interval | undefined {
  const ratios = mine && peer ? pairedRatios(mine.samples, peer.samples) : undefined;
  return ratios === undefined ? undefined : medianInterval(ratios);
}

/**
 * A function's own share of init above a floor, per round: mine[i] ÷ peer[i] − floor[i] ÷ peer[i] (each round's
 * three samples were taken in the same round-robin pass); undefined when any of the three was not timed or a peer
 * sample is not positive.
 */
function initSharesAbove(
  mine: InitTime | undefined,
  floor: InitTime | undefined,
  peer: InitTime | undefined,
): number[] | undefined {
  if (!mine || !floor || !peer) return undefined;
  const mineRatios = pairedRatios(mine.samples, peer.samples);
  const floorRatios = pairedRatios(floor.samples, peer.samples);
  if (mineRatios === undefined || floorRatios === undefined) return undefined;
  const rounds = Math.min(mineRatios.length, floorRatios.length);
  return Array.from({ length: rounds }, (_, round) => (mineRatios[round] as number) - (floorRatios[round] as number));
}

/** The median of initSharesAbove and its 95 % interval (medianInterval); undefined when any of the three was not timed. */
function initShareAbove(
  mine: InitTime | undefined,
  floor: InitTime | undefined,
  peer: InitTime | undefined,
): { share: number; interval: Interval } | undefined {
  const shares = initSharesAbove(mine, floor, peer);
  return shares === undefined || shares.length === 0
    ? undefined
    : { share: median(shares), interval: medianInterval(shares) };
}

export {
  type InitTarget,
  type InitTime,
  initRatio,
  initRatioInterval,
  initShareAbove,
  initSharesAbove,
  measureInitTimes,
};
