import type { RequestCount } from '../scenarios/request-counts.js';
import { type InitTime, initRatio } from '../support/init-time.js';
import { RulesFloor } from '../support/rules-floor.js';
import { baselineInitSection } from './baseline-sections.js';
import { bundleCompositionSection } from './bundle-composition-section.js';
import { coldInvocationSection } from './cold-start-section.js';
import { kb, mb, num, table } from './format.js';
import type { BenchResults } from './results.js';

// One function per figure of BENCHMARKS.md; each renders its heading, what was measured, and the table.

function counts(count: RequestCount | undefined): [string, string, string] {
  if (!count) return ['–', '–', '–'];
  return [String(count.writes), String(count.reads), String(count.reads - count.conditionFailures)];
}

/** Figure section: request. */
function requestSection(results: BenchResults): string {
  const rows = results.requestCounts ?? [];
  return [
    '## 1. DynamoDB requests per job',
    '',
    'Counted by an SDK middleware below the retry layer on each worker\'s client (test/support/request-counter.ts). A no-op job, so only the protocol is counted. "reads on DynamoDB" subtracts the read-back GetItem that follows each failed conditional write on dynalite, which ignores `ReturnValuesOnConditionCheckFailure` (both systems read the item back; DynamoDB returns it with the failure).',
    '',
    table(
      [
        'situation',
        'leasefence writes',
        'reads (dynalite)',
        'reads on DynamoDB',
        'peer writes',
        'reads (dynalite)',
        'reads on DynamoDB',
      ],
      rows.map((row) => [row.situation, ...counts(row.leasefence), ...counts(row.peer)]),
    ),
    '',
    `- Inline payload: the leasefence producer also spends ${rows.find((row) => row.producerWrites > 0)?.producerWrites ?? 0} PutItem on the payloads table before sending; the worker reads the body back (1 GetItem). The peer carries the payload inside the event, so both happy-path rows are the same for it.`,
    '- Takeover: the stalled first worker is not counted, only the worker that takes over. The peer has no sweeper, so it has no wake-up row.',
    '- Delayed job (`sendJob` with `delaySeconds` > 0): the producer writes the queued row first, so the job is visible and cancellable at once. That is one PutItem more than an immediate job (the worker then claims with one UpdateItem instead of creating the row claimed, and completes): 3 writes per job instead of 2, counted in test/integration/worker/delayed-jobs.test.ts. Immediate jobs keep the two-write path.',
  ].join('\n');
}

/** Figure section: throughput. */
function throughputSection(results: BenchResults): string {
  const rows = results.throughput ?? [];
  const mode = (value: string) =>
    value === 'side-effect'
      ? 'fencing on: fenced put'
      : value === 'side-effect-update'
        ? 'fencing on: fenced update'
        : value === 'side-effect-peer-cached'
          ? 'fenced put, peer given cacheMiddleware (not judged)'
          : 'protocol only';
  return [
    '## 2. Jobs per second through the worker runtime',
    '',
    'leasefence: `WorkerRuntime.handleMessage` with synthetic messages (payloadRef, resolver in memory). Peer: the same job under `makeIdempotent`. No SQS in the loop: both receive the message body as a string, parse it and validate the payload against the same schema (the peer as a Powertools parser would). "fencing on": the peer job writes its record with a plain PutItem; the leasefence job writes the same record with a fenced put (`ctx.records.put`, the same operation with `writer_epoch < fence` in its condition; the judged rows) or a fenced update (`ctx.records.write`, an UpdateItem returning the new item). Each concurrency: a warm-up, then paired runs in alternating order; medians of the runs, and the median of the per-pair ratios.',
    '',
    table(
      [
        'mode',
        'concurrency',
        'leasefence jobs/s',
        'peer jobs/s',
        'ratio',
        'leasefence p50 / p99 ms',
        'peer p50 / p99 ms',
        'requests/job lf / peer',
        'worker CPU ms/job lf / peer',
        'engine CPU ms/job lf / peer',
      ],
      rows.map((row) => [
        mode(row.mode),
        String(row.concurrency),
        num(row.leasefence.jobsPerSecond),
        num(row.peer.jobsPerSecond),
        `**${num(row.ratio, 2)}**`,
        `${num(row.leasefence.p50Ms, 1)} / ${num(row.leasefence.p99Ms, 1)}`,
        `${num(row.peer.p50Ms, 1)} / ${num(row.peer.p99Ms, 1)}`,
        `${num(row.leasefence.requestsPerJob, 1)} / ${num(row.peer.requestsPerJob, 1)}`,
        `${num(row.leasefence.cpuMsPerJob, 2)} / ${num(row.peer.cpuMsPerJob, 2)}`,
        `${num(row.leasefence.engineCpuMsPerJob, 2)} / ${num(row.peer.engineCpuMsPerJob, 2)}`,
      ]),
    ),
    '',
    `Runs per cell: ${rows[0]?.leasefence.samples.length ?? 0} per system. Worker CPU ms/job: process.cpuUsage of the benchmark process, which holds only the worker (the engine runs in its own process, whose CPU from /proc is the engine column; ${results.throughputCpuPinning ?? 'pinning not recorded'}). Both systems run in one child process, one at a time, from one esbuild bundle built with the construct's settings (minified, names kept, source maps on, AWS SDK and Powertools bundled): the code Lambda runs, both systems built the same way.`,
    ...writeShapeTable(results),
  ].join('\n');
}

/** Figure 2b: the side-effect write alone, by shape (sequential single writes to fresh keys). */
function writeShapeTable(results: BenchResults): string[] {
  const rows = results.writeShapes;
  if (!rows) return [];
  return [
    '',
    "**2b. The side-effect write alone**, one request at a time to fresh keys, interleaved blocks (median): the peer's plain PutItem; leasefence's `ctx.records.write` (a conditional UpdateItem with `writer_epoch`, `writer_op` and `writer_token` in the condition, returning the new item as `FencedWriteResult.item`); the same request with `ReturnValues: NONE`; and a fenced whole-record put (`ctx.records.put`).",
    '',
    table(
      ['write', 'latency ms', 'CPU ms (process, incl. engine)'],
      rows.map((row) => [row.shape, num(row.latencyMs, 2), num(row.cpuMs, 2)]),
    ),
  ];
}

/** Figure section: stale. */
function staleSection(results: BenchResults): string {
  return [
    '## 3. Stale worker: pause after claim past expiry, then resume',
    '',
    "The first worker claims and pauses before its side effect; its lease expires (leasefence: manual clock past the 30 s lease; peer: its in-progress expiry, set to 150 ms through the Lambda context's remaining time); a second worker takes over and finishes; then the first resumes. Side effects = writes to the operation's record that returned success. Reported, not asserted.",
    '',
    table(
      ['system', 'operations', 'side effects per operation', 'record last written by the stale worker'],
      (results.stale ?? []).map((row) => [
        row.system === 'powertools' ? 'Powertools idempotency' : 'leasefence',
        String(row.operations),
        num(row.sideEffectsPerOperation, 1),
        `${row.finalWriterStale} of ${row.operations}`,
      ]),
    ),
  ].join('\n');
}

/** Figure section: sweeper. */
function sweeperSection(results: BenchResults): string {
  const scaling = results.sweeper;
  return [
    '## 4. Sweeper: cost per sweep vs table size',
    '',
    'One `sweep()` (lib/sweeper/sweeper.ts) over a table with 100 expired leases (half with attempts left ▶ wake-up, half exhausted ▶ unknown) among healthy rows (live leases and future retries in the deadline index, finished and parked rows outside it). Rows loaded with BatchWriteItem, 25 per request, 4 writers.',
    '',
    table(
      [
        'rows',
        'expired',
        'read requests',
        'items read',
        'RCU',
        'write requests',
        '▶ unknown',
        're-signalled',
        'sweep ms',
        'load s',
      ],
      (scaling?.rows ?? []).map((row) => [
        num(row.totalItems),
        num(row.expiredItems),
        String(row.readRequests),
        String(row.itemsRead),
        num(row.readCapacityUnits, 1),
        String(row.writeRequests),
        String(row.sweptToUnknown),
        String(row.resignalled),
        num(row.sweepMs),
        num(row.loadSeconds, 1),
      ]),
    ),
    '',
    scaling
      ? `Largest ÷ smallest: read requests ×${num(scaling.readRequestRatio, 2)}, items read ×${num(scaling.itemsReadRatio, 2)}. Read requests = one Query per deadline shard (32) + one oldest-unknown probe per shard of the parked index (16); items read include the first unknown item of each parked shard that holds one (at most 16). Sweep ms of the first table also pays first use (JIT, connections).`
      : '',
  ].join('\n');
}

/** Figure 5's reading of its two rules-floor rows: what each holds and what its init ÷ peer bounds. */
function rulesFloorText(): string {
  return [
    "**The floor the project's rules set.** The two rules-floor rows hold only what the project's rules put in a leasefence Lambda, and no leasefence code.",
    `\`${RulesFloor.worker}\` (test/bench/bundle/rules-floor.ts) is what every leasefence worker must hold: a \`zod/mini\` schema of the SQS envelope built at import (leasefence's fields and checks, written apart from lib/), Powertools Logger, Metrics and batch (partial batch responses), and the DocumentClient the worker gives each job as \`ctx.client\`, one PutCommand per record; a worker held to the rules cannot import faster or bundle smaller, so the worker's init ÷ peer minus this row's is leasefence's own share.`,
    `\`${RulesFloor.plainClient}\` (rules-floor-plain-client.ts) is the same with a plain \`DynamoDBClient\`, \`PutItemCommand\` and \`marshall\`, the floor the sweeper and admin functions could reach (they give no job a DocumentClient): their init ÷ peer minus this row's is their leasefence share (they need no batch processor, so for them the floor is close, not exact).`,
  ].join(' ');
}

/** Figure section: bundle. */
function bundleSection(results: BenchResults): string {
  const report = results.bundles;
  const peer = report?.rows.find((row) => row.name === 'powertools-idempotency');
  const ratio = (mine: InitTime | undefined, theirs: InitTime | undefined) => {
    const value = initRatio(mine, theirs);
    return value === undefined ? '–' : num(value, 2);
  };
  return [
    '## 5. Lambda bundles: minified size and module initialisation',
    '',
    "leasefence functions: the project's CDK synth (infra/app/synth.ts, sizes by infra/app/bundle-size.ts), esbuild minified ESM, once with the AWS SDK external (`bundleAwsSdk: false`, the construct's default: the Lambda runtime provides SDK v3) and once bundled. Peer: an SQS handler with Powertools batch + `makeIdempotent` (test/bench/bundle/peer-handler.ts) bundled with the same esbuild settings. Init = time of `import()` of the bundle in a fresh `node` process with the construct's `NODE_OPTIONS` (`--enable-source-maps`, for every bundle alike: Node registers the bundle's source map at import, which a deployed function pays) (median of N, round-robin across bundles, every other round reversed): module evaluation of a cold start, not the Lambda runtime's own start. Init ÷ peer is the median of the per-round ratios (each bundle's run over the peer's run of the same round), so a drift in the machine's load moves both sides of a pair alike. SDK-external bundles import the SDK from node_modules, as they would from the runtime. The two `bench worker` rows are the worker handler running the benchmark job alone (test/bench/bundle/leasefence-handler.ts and leasefence-handler-mini.ts), its payload schema written with zod classic and with `zod/mini`: lib/ itself uses `zod/mini`, so classic zod is in a bundle only when the job module imports it. The targets judge `worker`, the project's own worker (the example jobs, their payload schemas in `zod/mini`).",
    '',
    rulesFloorText(),
    '',
    table(
      [
        'function',
        'minified, SDK external (default)',
        'init ms median / p90',
        'init ÷ peer',
        'minified, SDK bundled',
        'init ms median / p90',
        'init ÷ peer',
      ],
      (report?.rows ?? []).map((row) => [
        row.name,
        kb(row.sdkExternalBytes),
        row.initSdkExternal ? `${num(row.initSdkExternal.medianMs)} / ${num(row.initSdkExternal.p90Ms)}` : '–',
        ratio(row.initSdkExternal, peer?.initSdkExternal),
        row.sdkBundledBytes === undefined ? '–' : kb(row.sdkBundledBytes),
        row.initSdkBundled ? `${num(row.initSdkBundled.medianMs)} / ${num(row.initSdkBundled.p90Ms)}` : '–',
        ratio(row.initSdkBundled, peer?.initSdkBundled),
      ]),
    ),
    '',
    report
      ? `Init runs per bundle: ${report.rows[0]?.initSdkExternal?.runs ?? 0}. Synth and bundling took ${num(report.synthSeconds, 0)} s.`
      : '',
    '',
    ...(report?.baseline ? [baselineInitSection(report), ''] : []),
    coldInvocationSection(report),
    '',
    bundleCompositionSection(report?.composition),
  ].join('\n');
}

/** Figure section: memory. */
function memorySection(results: BenchResults): string {
  const rows = results.memory ?? [];
  const at = (row: (typeof rows)[number], jobs: number) =>
    row.checkpoints.find((checkpoint) => checkpoint.jobs === jobs);
  return [
    '## 6. Memory of the worker process',
    '',
    "A child process (`node --expose-gc`) handles the jobs (payloadRef, fenced side-effect write, concurrency 8) against the dynalite of the parent, so the table's growth is not in the numbers. Memory after a forced full GC at every 1,000 jobs; slopes by least squares over the checkpoints after the first (warm-up).",
    '',
    table(
      [
        'system',
        'RSS @1k / 5k / 10k jobs',
        'peak RSS (sampled)',
        'RSS slope per 1k jobs',
        'heap used @1k / 10k jobs',
        'heap slope per 1k jobs',
      ],
      rows.map((row) => [
        row.system === 'powertools' ? 'Powertools idempotency (reference)' : 'leasefence',
        `${[1000, 5000, 10000].map((jobs) => num((at(row, jobs)?.rssBytes ?? Number.NaN) / 1e6, 1)).join(' / ')} MB`,
        mb(row.peakRssBytes),
        `${num(row.rssSlopeBytesPer1k / 1000, 0)} kB`,
        `${[1000, 10000].map((jobs) => num((at(row, jobs)?.heapUsedBytes ?? Number.NaN) / 1e6, 2)).join(' / ')} MB`,
        `${num(row.heapSlopeBytesPer1k / 1000, 1)} kB (${num(row.heapSlopeBytesPer1k / 1000, 0)} B/job)`,
      ]),
    ),
  ].join('\n');
}

export { bundleSection, memorySection, requestSection, staleSection, sweeperSection, throughputSection };
