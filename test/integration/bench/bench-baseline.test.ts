import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measureHandlerBatches } from '../../bench/scenarios/handler-batches.js';
import { type Baseline, prepareBaseline } from '../../bench/support/baseline.js';
import { type BenchEngine, startBenchEngine } from '../../bench/support/bench-engine.js';

/**
 * `npm run bench -- --baseline=<commit>` at a tiny size: figure 9 with this checkout's own HEAD as the baseline
 * (checked out by `git archive`, its bench entry bundled and run beside today's worker and the peer). Counts only.
 */
describe('figure 9 with a baseline commit, at tiny size', () => {
  let engine: BenchEngine;
  let baseline: Baseline;

  beforeAll(async () => {
    engine = await startBenchEngine();
    baseline = prepareBaseline('HEAD');
  });
  afterAll(async () => {
    baseline?.remove();
    await engine.stop();
  });

  it("runs the baseline's worker in the judged mode only, in the same repetitions, and every job of it writes its record", {
    timeout: 180_000,
  }, async () => {
    const report = await measureHandlerBatches(engine, {
      concurrencies: [1, 2],
      modes: ['protocol', 'fenced-record'],
      batchesPerRun: 2,
      warmupBatches: 1,
      repetitions: 3,
      baseline,
    });
    expect(report.baseline).toEqual({ commit: baseline.commit, label: baseline.label });
    const cells = report.rows.map((row) => [
      row.mode,
      row.concurrency,
      row.baseline?.summary.batches,
      row.baseline?.summary.jobs,
      row.baseline?.summary.batchItemFailures,
      row.baseline?.summary.writesPerJob,
      row.leasefence.jobs,
    ]);
    // Three timed runs of two batches of ten per cell; the baseline only where fencing is on (claim, record, completion).
    expect(cells).toEqual([
      ['protocol', 1, undefined, undefined, undefined, undefined, 60],
      ['protocol', 2, undefined, undefined, undefined, undefined, 60],
      ['fenced-record', 1, 6, 60, 0, 3, 60],
      ['fenced-record', 2, 6, 60, 0, 3, 60],
    ]);
    for (const row of report.rows.filter((candidate) => candidate.baseline)) {
      const { jobsPerSecond, cpuPerJob } = row.baseline?.todayOverBaseline ?? {};
      for (const ratio of [jobsPerSecond, cpuPerJob]) {
        expect(ratio?.low).toBeLessThanOrEqual(ratio?.ratio ?? Number.NaN);
        expect(ratio?.ratio).toBeLessThanOrEqual(ratio?.high ?? Number.NaN);
      }
    }
    // The timed jobs and one warm-up batch per cell, in the record mode.
    expect(report.recordsWritten).toEqual({ leasefence: 140, peer: 140, baseline: 140 });
  });
});
