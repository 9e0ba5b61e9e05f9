import { initRatio, initRatioInterval } from '../support/init-time.js';
import { RulesFloor, type RulesFloorName } from '../support/rules-floor.js';
import type { Interval } from '../support/stats.js';
import { kb, num } from './format.js';
import type { BenchResults } from './results.js';
import type { TargetRow } from './target-row.js';

/** Issue #29's cold-start thresholds: module init ÷ the peer's (median of per-round ratios, one run), and the worker's bundle size. */
const ColdStartTargets = {
  workerInitRatio: 1.0,
  otherInitRatio: 1.1,
  workerBundleBytes: 120_000,
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

/** One function's init ÷ peer and its 95 % interval (initRatioInterval), or undefined when either was not timed. */
interface JudgedRatio {
  name: string;
  ratio: number | undefined;
  interval: Interval | undefined;
}

function judgedRatio(results: BenchResults, name: string): JudgedRatio {
  const { mine, peer } = initTimesOf(results, name);
  return { name, ratio: initRatio(mine, peer), interval: initRatioInterval(mine, peer) };
}

/** What a rules-floor row holds, for the notes: the worker's floor, and the plain-client floor of the others. */
const FLOOR_HOLDS: Record<RulesFloorName, string> = {
  [RulesFloor.worker]:
    'The rules floor of figure 5 (zod/mini envelope schema, Powertools Logger + Metrics + batch and the DocumentClient of `ctx.client`, no leasefence code)',
  [RulesFloor.plainClient]:
    'The plain-client rules floor of figure 5 (zod/mini envelope schema, Powertools Logger + Metrics + batch and a plain DynamoDB client, no leasefence code)',
};

/**
 * Why a missed init target is where it is: the floor's init ÷ peer of this run (no function held to the project's
 * rules imports faster) and each function's share above it; undefined when the floor was not timed.
 */
function initFloorNote(
  results: BenchResults,
  floor: RulesFloorName,
  ratios: ReadonlyArray<readonly [string, number | undefined]>,
  limit: number,
): string | undefined {
  const floorRatio = functionInitRatio(results, floor);
  if (floorRatio === undefined || !Number.isFinite(floorRatio)) return undefined;
  const shares = ratios.map(([name, ratio]) => `${name} ${num((ratio ?? Number.NaN) - floorRatio, 2)}`).join(', ');
  const belowFloor = floorRatio > limit ? ` The ${num(limit, 1)}× target is below that floor in this run.` : '';
  return `${FLOOR_HOLDS[floor]} imports at ${num(floorRatio, 2)}× the peer in this run: a function held to the project's rules cannot import faster, so init ÷ peer minus the floor's is leasefence's own share: ${shares}.${belowFloor}`;
}

/**
 * An init target: met only when the whole 95 % interval of every function's median per-round ratio is within the
 * limit, so a run's noise cannot make a miss look met; a median within the limit whose interval crosses it is
 * missed, with a note that says so.
 */
function initTarget(results: BenchResults, names: readonly string[], limit: number, floor: RulesFloorName): TargetRow {
  const judged = names.map((name) => judgedRatio(results, name));
  const seen = judged.every(({ ratio, interval }) => ratio !== undefined && interval !== undefined);
  // Every named function must have been timed: a missing one is not run, never met.
  const status = !seen
    ? 'not run'
    : judged.every(({ interval }) => (interval?.high ?? Number.POSITIVE_INFINITY) <= limit)
      ? 'met'
      : 'missed';
  const withinNoise = judged.filter(
    ({ ratio, interval }) => ratio !== undefined && ratio <= limit && (interval?.high ?? Number.NaN) > limit,
  );
  const notes =
    status === 'missed'
      ? [
          withinNoise.length > 0
            ? `Within this run's noise: the median of ${withinNoise.map(({ name }) => name).join(' and ')} is within ${num(limit, 1)}×, but its 95 % interval reaches above it, so it is not judged met.`
            : undefined,
          initFloorNote(
            results,
            floor,
            judged.map(({ name, ratio }) => [name, ratio] as const),
            limit,
          ),
        ].filter((sentence) => sentence !== undefined)
      : [];
  return {
    figure: '5',
    target: `${names.join(' and ')} module init ≤ ${num(limit, 1)}× the peer's (median of per-round ratios, SDK external; met when its 95 % interval is)`,
    measured: seen
      ? judged
          .map(
            ({ name, ratio, interval }) =>
              `${name} ${num(ratio, 2)} (${num(interval?.low, 2)}–${num(interval?.high, 2)})`,
          )
          .join(', ')
      : '–',
    status,
    ...(notes.length === 0 ? {} : { note: notes.join(' ') }),
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

/** The rules floor's bundle size against the worker's limit; undefined when the floor was not built. */
function bundleFloorNote(results: BenchResults): string | undefined {
  const floorBytes = results.bundles?.rows.find((row) => row.name === RulesFloor.worker)?.sdkExternalBytes;
  if (floorBytes === undefined || !Number.isFinite(floorBytes)) return undefined;
  const left = ColdStartTargets.workerBundleBytes - floorBytes;
  const room =
    left > 0
      ? `${kb(ColdStartTargets.workerBundleBytes)} leaves ${kb(left)} for leasefence's own code and whatever of zod, Powertools and the SDK clients it uses beyond the floor`
      : 'the floor alone is over the limit';
  return `${FLOOR_HOLDS[RulesFloor.worker]} is ${kb(floorBytes)} minified in this run: ${room}.`;
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
    initTarget(results, ['worker'], ColdStartTargets.workerInitRatio, RulesFloor.worker),
    initTarget(results, ['sweeper', 'admin'], ColdStartTargets.otherInitRatio, RulesFloor.plainClient),
  ];
}

export { ColdStartTargets, coldStartTargets };
