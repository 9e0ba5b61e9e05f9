import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../bench/report/markdown.js';
import { type BenchResults, runMeta } from '../../bench/report/results.js';
import { measureBundles } from '../../bench/scenarios/bundles.js';
import { measureCapacity } from '../../bench/scenarios/capacity.js';
import { measureHotPartitions } from '../../bench/scenarios/hot-partitions.js';
import { measureMemory } from '../../bench/scenarios/memory.js';
import { measureRequestCounts } from '../../bench/scenarios/request-counts.js';
import { measureStaleWorker } from '../../bench/scenarios/stale-worker.js';
import { measureSweeperScaling } from '../../bench/scenarios/sweeper-scaling.js';
import { measureThroughputAsDeployed } from '../../bench/scenarios/throughput-as-deployed.js';
import { measureWriteShapes } from '../../bench/scenarios/write-shapes.js';
import { type BenchEngine, startBenchEngine } from '../../bench/support/bench-engine.js';
import { createTestQueue, testSqsClient } from '../../support/engine.js';

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
      ['replay of a finished job', true, true],
      ['each heartbeat', true, false],
      ['each retry (queued again, then re-claimed by its own wake-up)', true, false],
      ['takeover after expiry (message redelivered)', true, true],
      ['sweep run, fixed (per run, any table size)', true, false],
      ['sweep, per expired claim (re-signal)', true, false],
      ['sweep, per heartbeating claim past its index deadline', true, false],
      ['operator action (cancel a claimed job)', true, false],
    ]);
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

  it('figure 5: four bundles with sizes and one init sample each', { timeout: 300_000 }, async () => {
    const report = await measureBundles({ initRuns: 1 });
    results.bundles = report;

    expect(report.rows.map((row) => row.name)).toEqual(['worker', 'sweeper', 'admin', 'powertools-idempotency']);
    for (const row of report.rows) expect(row.sdkBundledBytes).toBeGreaterThan(row.sdkExternalBytes);
    expect(report.rows.map((row) => row.initSdkExternal?.runs)).toEqual([1, 1, 1, 1]);
    expect(report.rows.map((row) => row.initSdkBundled?.runs)).toEqual([1, undefined, undefined, 1]);
  });

  it('renders every figure and the targets table', () => {
    const markdown = renderMarkdown(results);

    for (const heading of ['## Targets', '## 1.', '## 2.', '## 3.', '## 4.', '## 5.', '## 6.', '## 7.', '## 8.']) {
      expect(markdown).toContain(heading);
    }
    expect(markdown).not.toContain('not run');
  });
});
