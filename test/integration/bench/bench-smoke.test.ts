import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../bench/report/markdown.js';
import { type BenchResults, runMeta } from '../../bench/report/results.js';
import { measureBundles } from '../../bench/scenarios/bundles.js';
import { measureCapacity } from '../../bench/scenarios/capacity.js';
import { measureFlowControl } from '../../bench/scenarios/flow-control.js';
import { measureHandlerBatches } from '../../bench/scenarios/handler-batches.js';
import { measureHotPartitions } from '../../bench/scenarios/hot-partitions.js';
import { measureMemory } from '../../bench/scenarios/memory.js';
import { measureRequestCounts } from '../../bench/scenarios/request-counts.js';
import { measureShadowUnits } from '../../bench/scenarios/shadow-capacity.js';
import { measureStaleWorker } from '../../bench/scenarios/stale-worker.js';
import { measureSweeperScaling } from '../../bench/scenarios/sweeper-scaling.js';
import { measureThroughputAsDeployed } from '../../bench/scenarios/throughput-as-deployed.js';
import { measureWriteShapes } from '../../bench/scenarios/write-shapes.js';
import { type BenchEngine, startBenchEngine } from '../../bench/support/bench-engine.js';
import { RulesFloor } from '../../bench/support/rules-floor.js';
import { createTestQueue, engineEndpoints, testSqsClient } from '../../support/engine.js';

/**
 * Every benchmark scenario (test/bench, `npm run bench`) at a tiny size on its own in-process dynalite, so the
 * bench code cannot rot. Asserts counts only (requests, side effects, items), never times.
 */
describe('benchmark scenarios at tiny size', () => {
  let engine: BenchEngine;
  const results: BenchResults = { meta: runMeta('quick') };

  beforeAll(async () => {
    engine = await startBenchEngine();
  });
  afterAll(async () => {
    await engine.stop();
  });

  it('figure 1: requests per job for both systems', async () => {
    const rows = await measureRequestCounts(engine);
    results.requestCounts = rows;
    const summary = rows.map((row) => [
      row.situation,
      row.leasefence.writes,
      row.leasefence.reads,
      row.peer?.writes,
      row.peer?.reads,
    ]);

    // dynalite: every failed conditional write is followed by one read-back GetItem in both systems. A row creation
    // reads the fence epoch when its store's cached epoch is older than 5 s: the fresh store's first job, and the
    // redelivered takeover (the scenario's clock jumps past the lease); a busy worker reads it once per 5 s.
    expect(summary).toEqual([
      ['happy path, payloadRef', 2, 1, 2, 0],
      ['happy path, inline payload', 2, 1, 2, 0],
      ['replay of a finished job', 1, 1, 1, 1],
      ['takeover after expiry (message redelivered)', 3, 2, 2, 0],
      ['takeover after expiry (sweeper wake-up)', 2, 0, undefined, undefined],
    ]);
    expect(rows[1]?.producerWrites).toBe(1);
  });

  it('figure 2: both systems, built into one bundle as deployed, spend the same requests per job, with and without the side-effect write', {
    timeout: 120_000,
  }, async () => {
    const { rows, cpuPinning } = await measureThroughputAsDeployed(engine, {
      concurrencies: [1, 4],
      jobsPerRun: 8,
      repetitions: 1,
      warmupJobs: 4,
      modes: ['protocol', 'side-effect', 'side-effect-update', 'side-effect-peer-cached'],
    });
    results.throughput = rows;
    results.throughputCpuPinning = cpuPinning;
    expect(cpuPinning).toMatch(/^(engine pinned to CPU|not pinned: )/);

    expect(
      rows.map((row) => [row.mode, row.concurrency, row.leasefence.requestsPerJob, row.peer.requestsPerJob]),
    ).toEqual([
      ['protocol', 1, 2, 2],
      ['protocol', 4, 2, 2],
      ['side-effect', 1, 3, 3],
      ['side-effect', 4, 3, 3],
      ['side-effect-update', 1, 3, 3],
      ['side-effect-update', 4, 3, 3],
      ['side-effect-peer-cached', 1, 3, 3],
      ['side-effect-peer-cached', 4, 3, 3],
    ]);
  });

  it('figure 2b: each write shape lands on a fresh key', async () => {
    const rows = await measureWriteShapes(engine, { blocks: 1, perBlock: 2 });
    results.writeShapes = rows;

    expect(rows.map((row) => row.shape)).toEqual([
      'plain PutItem (peer)',
      'fenced write (leasefence)',
      'fenced write, ReturnValues NONE',
      'fenced put (records.put)',
    ]);
  });

  it('figure 3: a stale worker lands its side effect again under the peer, never under leasefence', async () => {
    const rows = await measureStaleWorker(engine, 1);
    results.stale = rows;

    expect(rows.map((row) => [row.system, row.sideEffectsPerOperation, row.finalWriterStale])).toEqual([
      ['leasefence', 1, 0],
      ['powertools', 2, 1],
    ]);
  });

  it('figure 4: the sweeper reads the same with 3x the rows', async () => {
    const scaling = await measureSweeperScaling(engine, { sizes: [200, 600], expired: 20 });
    results.sweeper = scaling;

    // One Query per deadline shard (32), and one oldest-unknown and one oldest-awaiting-approval probe per parked
    // shard (16 each), whatever the size.
    expect(scaling.rows.map((row) => [row.readRequests, row.sweptToUnknown, row.resignalled])).toEqual([
      [64, 10, 10],
      [64, 10, 10],
    ]);
    expect(scaling.readRequestRatio).toBe(1);
    // Items: the 20 expired, plus the first item of each parked shard the 10 swept ones landed in (1 to 10).
    for (const row of scaling.rows) {
      expect(row.itemsRead).toBeGreaterThanOrEqual(21);
      expect(row.itemsRead).toBeLessThanOrEqual(30);
    }
  });

  it('figure 6: the memory child reports a checkpoint per batch for both systems', async () => {
    const rows = await measureMemory(engine, {
      jobs: 20,
      checkpoint: 10,
      concurrency: 2,
      systems: ['leasefence', 'powertools'],
    });
    results.memory = rows;

    expect(rows.map((row) => [row.system, row.checkpoints.map((checkpoint) => checkpoint.jobs)])).toEqual([
      ['leasefence', [10, 20]],
      ['powertools', [10, 20]],
    ]);
  });

  it('figure 7: capacity units for every situation of both systems', async () => {
    const sqs = testSqsClient();
    try {
      const { queueUrl } = await createTestQueue(sqs, 'bench-smoke');
      results.capacity = await measureCapacity(engine, { sqs, queueUrl });
    } finally {
      sqs.destroy();
    }

    expect(
      results.capacity.rows.map((row) => [row.situation, row.leasefence !== undefined, row.peer !== undefined]),
    ).toEqual([
      ['happy path, payloadRef', true, true],
      ['happy path, inline payload (producer + worker)', true, true],
      ['delayed job (queued row first, then a wake-up)', true, true],
      ['confirm-first enqueue (body, queued row, then a wake-up)', true, true],
      ['inline payload carried in the message (the worker stores it)', true, true],
      ['replay of a finished job', true, true],
      ['each heartbeat', true, false],
      ['each retry (queued again, then re-claimed by its own wake-up)', true, false],
      ['takeover after expiry (message redelivered)', true, true],
      ['sweep run, fixed (per run, any table size)', true, false],
      ['sweep, per expired claim (re-signal)', true, false],
      ['sweep, per heartbeating claim past its index deadline', true, false],
      ['operator action (cancel a claimed job)', true, false],
    ]);
    // Shadow mode (figure 10's line): a conditional start and end on the shadow row, in no index.
    results.shadowCapacity = await measureShadowUnits(engine);
    expect(results.shadowCapacity).toEqual({ wru: 2, rru: 0, indexWru: 0 });
  });

  it('figure 8: two worker processes spread one tenant over its 16 partition keys', { timeout: 120_000 }, async () => {
    const rows = await measureHotPartitions(engine, { workers: 2, jobsPerWorker: 40, concurrency: 4 });
    results.hotPartitions = rows;

    expect(rows.map((row) => [row.mix, row.jobs, row.tableWrites])).toEqual([
      ['one tenant', 80, 160],
      ['many tenants (uniform)', 80, 160],
    ]);
    // 80 random operation ids over 16 buckets: all 16 are hit only about 9 times in 10, while 8 or fewer would
    // take a broken spread (chance below 1e-19); one tenant never writes outside its 16 keys.
    expect(rows[0]?.distinctKeys).toBeGreaterThan(8);
    expect(rows[0]?.distinctKeys).toBeLessThanOrEqual(16);
  });

  it('figure 5: eight bundles with sizes and one init sample each', { timeout: 300_000 }, async () => {
    const report = await measureBundles({ initRuns: 1 });
    results.bundles = report;

    expect(report.rows.map((row) => row.name)).toEqual([
      'worker',
      'sweeper',
      'admin',
      'bench worker, classic payload',
      'bench worker, mini payload',
      RulesFloor.worker,
      RulesFloor.plainClient,
      'powertools-idempotency',
    ]);
    for (const row of report.rows) {
      expect(row.sdkExternalBytes).toBeGreaterThan(0);
      if (row.sdkBundledBytes !== undefined) expect(row.sdkBundledBytes).toBeGreaterThan(row.sdkExternalBytes);
    }
    expect(report.rows.map((row) => row.initSdkExternal?.runs)).toEqual([1, 1, 1, 1, 1, 1, 1, 1]);
    expect(report.rows.map((row) => row.initSdkBundled?.runs)).toEqual([
      1,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      1,
    ]);
    // A payload schema in zod/mini keeps classic zod out of the bundle: smaller than the same job in classic.
    const bytesOf = (name: string) => report.rows.find((row) => row.name === name)?.sdkExternalBytes ?? 0;
    expect(bytesOf('bench worker, mini payload')).toBeLessThan(bytesOf('bench worker, classic payload'));
    // The rules floors hold no leasefence code: smaller than the bench worker with the same zod/mini and Powertools.
    for (const floor of [RulesFloor.worker, RulesFloor.plainClient]) {
      expect(bytesOf(floor)).toBeLessThan(bytesOf('bench worker, mini payload'));
    }
    // Each cold invocation handled its record (a failed record throws in the probe).
    expect(report.coldInvocation.map((row) => [row.name, row.runs])).toEqual([
      ['worker, classic payload', 1],
      ['worker, mini payload', 1],
      ['powertools-idempotency', 1],
    ]);
    // Figure 5c accounts for the very bundle the synth staged: the same entry and settings, the same bytes.
    const [workerParts, peerParts] = report.composition;
    expect(workerParts?.totalBytes).toBe(bytesOf('worker'));
    // The peer's file has its own name, which its source-map comment repeats: a few bytes apart, no more.
    expect(Math.abs((peerParts?.totalBytes ?? 0) - bytesOf('powertools-idempotency'))).toBeLessThan(64);
    expect(workerParts?.parts.map((part) => part.part)).toContain('lib/store/');
  });

  it('figure 9: both handlers, built as the construct builds them, acknowledge every record and spend the same writes per job, with and without the record write', {
    timeout: 180_000,
  }, async () => {
    const report = await measureHandlerBatches(engine, {
      concurrencies: [1, 2],
      modes: ['protocol', 'fenced-record'],
      batchesPerRun: 2,
      warmupBatches: 1,
      repetitions: 2,
    });

    results.handlerBatches = report;
    expect(report.batchSize).toBe(10);
    expect(report.cpuPinning).toMatch(/^(engine pinned to CPU|not pinned: )/);
    const counts = report.rows.map((row) => [
      row.mode,
      row.concurrency,
      row.leasefence.batches,
      row.leasefence.jobs,
      row.leasefence.batchItemFailures,
      row.leasefence.writesPerJob,
      row.peer.batches,
      row.peer.jobs,
      row.peer.batchItemFailures,
      row.peer.writesPerJob,
    ]);
    // Two timed runs of two batches of ten per cell. Protocol: claim-on-create + completion (leasefence), the
    // in-progress put + the completion update (peer); the record write adds one write to each.
    expect(counts).toEqual([
      ['protocol', 1, 4, 40, 0, 2, 4, 40, 0, 2],
      ['protocol', 2, 4, 40, 0, 2, 4, 40, 0, 2],
      ['fenced-record', 1, 4, 40, 0, 3, 4, 40, 0, 3],
      ['fenced-record', 2, 4, 40, 0, 3, 4, 40, 0, 3],
    ]);
    // Reads: no job reads anything; leasefence's store reads its fence epoch once per 5 s, never per job.
    for (const row of report.rows) {
      expect(row.leasefence.readsPerJob).toBeLessThan(1);
      expect(row.peer.readsPerJob).toBe(0);
    }
    // Every job of the record mode wrote its own record once: the timed jobs plus one warm-up batch per cell.
    expect(report.recordsWritten).toEqual({ leasefence: 100, peer: 100 });
  });

  it('figure 11: a noisy tenant and a quiet one through a pool of workers, three ways; every job starts once and the limit holds', {
    timeout: 180_000,
  }, async () => {
    const sqs = testSqsClient();
    try {
      results.flowControl = await measureFlowControl(engine, {
        sqs,
        sqsEndpoint: engineEndpoints().sqs,
        noisyJobs: 40,
        quietJobs: 4,
        pool: 4,
        bulkConsumers: 3,
        perTenantLimit: 2,
        jobMs: 20,
        unitJobs: 3,
      });
    } finally {
      sqs.destroy();
    }
    const report = results.flowControl;

    expect(report.rows.map((row) => [row.mode, row.sent, row.started, row.duplicateRuns, row.regranted])).toEqual([
      ['no limits', 44, 44, 0, 0],
      ['per-tenant limit', 44, 44, 0, 0],
      ['priorities', 44, 44, 0, 0],
    ]);
    const [unlimited, limited] = report.rows;
    // The limit is what holds the noisy tenant: four consumers on its backlog run more than two at once without it.
    expect(unlimited?.perKey.find((key) => key.tenantId === 'noisy')?.highest).toBeGreaterThan(2);
    expect(limited?.perKey.map((key) => [key.tenantId, key.limit, key.highest <= 2])).toEqual([
      ['noisy', 2, true],
      ['quiet', 2, true],
    ]);
    expect(limited?.concurrencyWaits).toBeGreaterThan(0);
    expect(unlimited?.concurrencyWaits).toBe(0);
    // A job that gets its slot at once writes the slot item and deletes it: two more write units.
    expect(report.units.limited.wru - report.units.unlimited.wru).toBe(2);
  });

  it('renders every figure and the targets table', () => {
    const markdown = renderMarkdown(results);

    const headings = [
      '## Targets',
      '## 1.',
      '## 2.',
      '## 3.',
      '## 4.',
      '## 5.',
      '### 5b.',
      '## 6.',
      '## 7.',
      '## 8.',
      '## 9.',
      '## 10.',
      '## 11.',
    ];
    for (const heading of headings) {
      expect(markdown).toContain(heading);
    }
    expect(markdown).not.toContain('not run');
    // Figure 5's rules-floor rows.
    for (const floor of [RulesFloor.worker, RulesFloor.plainClient]) {
      expect(markdown).toContain(`| ${floor} | `);
    }
    // Figure 10, computed from figure 7's units and figure 9's CPU: a job's line for both systems.
    expect(markdown).toMatch(
      /\| a job \(payloadRef\) \| \$[\d.]+ \| \$[\d.]+ \| \$[\d.]+ \| \*\*\$[\d.]+\*\* \| \$[\d.]+ \|/,
    );
  });
});
