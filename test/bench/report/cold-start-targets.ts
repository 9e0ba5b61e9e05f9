import { initRatio, initShareAbove } from '../support/init-time.js';
import { RulesFloor, type RulesFloorName } from '../support/rules-floor.js';
import type { Interval } from '../support/stats.js';
import { kb, num } from './format.js';
import type { BenchResults } from './results.js';
import type { TargetRow } from './target-row.js';

/**
 * Issue #46's cold-start targets: leasefence's own share of module init above the floor the project's rules set
 * (init ÷ peer minus the floor's, per round, judged on its 95 % interval), and the worker's bundle no larger than
 * it was when they were set (224 kB). They replace issue #29's 1.0× / 1.1× of the peer, which sat below the floor.
 */
const ColdStartTargets = {
  workerShareAboveFloor: 0.1,
  otherShareAboveFloor: 0.05,
  workerBundleBytes: 224_000,
} as const;

const PEER = 'powertools-idempotency';

/** The SDK-external init times of one function and of the peer (undefined: not timed). */
function initTimesOf(results: BenchResults, name: string) {
  const rows = results.bundles?.rows ?? [];
  return {
    mine: rows.find((row) => row.name === name)?.initSdkExternal,
    peer: rows.find((row) => row.name === PEER)?.initSdkExternal,
  };
}

/** Init ÷ peer of one function (SDK external, the default), or undefined when either was not timed. */
function functionInitRatio(results: BenchResults, name: string): number | undefined {
  const { mine, peer } = initTimesOf(results, name);
  return initRatio(mine, peer);
}

/** One function's own share of init above a floor (initShareAbove), with its raw init ÷ peer for context. */
interface JudgedShare {
  name: string;
  ratio: number | undefined;
  share: number | undefined;
  interval: Interval | undefined;
}

function judgedShare(results: BenchResults, name: string, floor: RulesFloorName): JudgedShare {
  const { mine, peer } = initTimesOf(results, name);
  const above = initShareAbove(mine, initTimesOf(results, floor).mine, peer);
  return { name, ratio: initRatio(mine, peer), share: above?.share, interval: above?.interval };
}

/** What a rules-floor row holds, for the notes: the worker's floor, and the plain-client floor of the others. */
const FLOOR_HOLDS: Record<RulesFloorName, string> = {
  [RulesFloor.worker]:
    'the rules floor (zod/mini envelope schema, Powertools Logger + Metrics + batch and the DocumentClient of `ctx.client`, no leasefence code)',
  [RulesFloor.plainClient]:
    'the plain-client rules floor (zod/mini envelope schema, Powertools Logger + Metrics + batch and a plain DynamoDB client, no leasefence code)',
};

const signed = (value: number | undefined) => `${value !== undefined && value >= 0 ? '+' : ''}${num(value, 2)}`;

/**
 * An init target on leasefence's own share: met only when the whole 95 % interval of every function's median
 * per-round share above the floor is within the limit, so a run's noise cannot make a miss look met; not run (never
 * met) when a function, the floor or the peer was not timed.
 */
function shareTarget(results: BenchResults, names: readonly string[], limit: number, floor: RulesFloorName): TargetRow {
  const judged = names.map((name) => judgedShare(results, name, floor));
  const floorRatio = functionInitRatio(results, floor);
  const seen = floorRatio !== undefined && judged.every(({ share, interval }) => share !== undefined && interval);
  const status = !seen
    ? 'not run'
    : judged.every(({ interval }) => (interval?.high ?? Number.POSITIVE_INFINITY) <= limit)
      ? 'met'
      : 'missed';
  const withinNoise = judged.filter(
    ({ share, interval }) => share !== undefined && share <= limit && (interval?.high ?? Number.NaN) > limit,
  );
  const note =
    status === 'missed' && withinNoise.length > 0
      ? `Within this run's noise: the median share of ${withinNoise.map(({ name }) => name).join(' and ')} is within ${signed(limit)}, but its 95 % interval reaches above it, so it is not judged met.`
      : undefined;
  return {
    figure: '5',
    target: `${names.join(' and ')} module init: leasefence's own share above ${FLOOR_HOLDS[floor]} ≤ ${signed(limit)} (init ÷ peer minus the floor's, per round; met when its 95 % interval is)`,
    measured: seen
      ? `${judged
          .map(
            ({ name, ratio, share, interval }) =>
              `${name} ${signed(share)} (${num(interval?.low, 2)}–${num(interval?.high, 2)}; ${num(ratio, 2)}×)`,
          )
          .join(', ')}; floor ${num(floorRatio, 2)}×`
      : '–',
    status,
    ...(note === undefined ? {} : { note }),
  };
}

/**
 * What the over-limit worker bundle holds, from this run's figure 5c (esbuild's metafile): zod, Powertools and
 * leasefence's own code; undefined when 5c was not measured (no sizes are typed into the report).
 */
function bundleCompositionNote(results: BenchResults): string | undefined {
  const worker = results.bundles?.composition.find((bundle) => bundle.name === 'worker');
  if (!worker) return undefined;
  const bytesOf = (matches: (part: string) => boolean) =>
    worker.parts.filter(({ part }) => matches(part)).reduce((sum, { bytes }) => sum + bytes, 0);
  const zod = bytesOf((part) => part === 'zod');
  const powertools = bytesOf((part) => part.startsWith('@aws-lambda-powertools/'));
  const library = bytesOf((part) => part.startsWith('lib/'));
  return `Over the limit (figure 5c): zod/mini ${kb(zod)} (lib/ and the example payload schemas alike), Powertools ${kb(powertools)} and leasefence's own lib/ ${kb(library)} (the store, the worker runtime, the fenced writes) of the worker's ${kb(worker.totalBytes)}.`;
}

/** The rules floor's bundle size, the part of the worker any function held to the rules holds; undefined when not built. */
function bundleFloorNote(results: BenchResults): string | undefined {
  const floorBytes = results.bundles?.rows.find((row) => row.name === RulesFloor.worker)?.sdkExternalBytes;
  if (floorBytes === undefined || !Number.isFinite(floorBytes)) return undefined;
  return `Of it, ${FLOOR_HOLDS[RulesFloor.worker]} is ${kb(floorBytes)} minified in this run.`;
}

/** Figure 5's judged rows: the worker's bundle size, its module init, and the sweeper's and admin's. */
function coldStartTargets(results: BenchResults): TargetRow[] {
  const worker = results.bundles?.rows.find((row) => row.name === 'worker');
  const bundleMet = worker !== undefined && worker.sdkExternalBytes <= ColdStartTargets.workerBundleBytes;
  const bundleNote =
    worker && !bundleMet
      ? [bundleCompositionNote(results), bundleFloorNote(results)]
          .filter((sentence) => sentence !== undefined)
          .join(' ')
      : '';
  return [
    {
      figure: '5',
      target: `worker bundle ≤ ${kb(ColdStartTargets.workerBundleBytes)} minified (default: SDK from the Lambda runtime)`,
      measured: worker
        ? `${kb(worker.sdkExternalBytes)} (with bundleAwsSdk: true ${worker.sdkBundledBytes === undefined ? '–' : kb(worker.sdkBundledBytes)}, not judged)`
        : '–',
      status: !worker ? 'not run' : bundleMet ? 'met' : 'missed',
      ...(bundleNote ? { note: bundleNote } : {}),
    },
    shareTarget(results, ['worker'], ColdStartTargets.workerShareAboveFloor, RulesFloor.worker),
    shareTarget(results, ['sweeper', 'admin'], ColdStartTargets.otherShareAboveFloor, RulesFloor.plainClient),
  ];
}

export { ColdStartTargets, coldStartTargets };
