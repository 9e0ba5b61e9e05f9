import { describe, expect, it } from 'vitest';
import type { HandlerBatchRow, HandlerRunSample } from '../../bench/handler/types.js';
import { handlerTargets } from '../../bench/report/handler-sections.js';
import type { HandlerBatchReport } from '../../bench/scenarios/handler-batches.js';

const SAMPLE: HandlerRunSample = {
  jobs: 100,
  batches: 10,
  batchItemFailures: 0,
  jobsPerSecond: 500,
  batchP50Ms: 20,
  batchP99Ms: 30,
  cpuMsPerJob: 1.5,
  engineCpuMsPerJob: 1.2,
  writesPerJob: 3,
  readsPerJob: 0,
};

/** A fencing-on cell of figure 9 with the given ratios. */
function cell(concurrency: number, jobsPerSecondRatio: number, cpuPerJobRatio: number): HandlerBatchRow {
  const side = { ...SAMPLE };
  return {
    mode: 'fenced-record',
    concurrency,
    leasefence: side,
    peer: side,
    jobsPerSecondRatio,
    cpuPerJobRatio,
    warmupJobs: 40,
  };
}

function noRegression(rows: HandlerBatchRow[] | undefined) {
  const report = rows === undefined ? undefined : ({ rows } as Pick<HandlerBatchReport, 'rows'> as HandlerBatchReport);
  return handlerTargets(report).find((row) => row.figure === '9 (#46)');
}

describe("figure 9: issue #46's no-regression guard", () => {
  it('is met only when every fencing-on cell is within both bounds', () => {
    expect(noRegression([cell(1, 0.95, 1.1), cell(8, 0.89, 1.16)])).toMatchObject({
      status: 'met',
      measured: 'c=1: 0.95 / 1.10, c=8: 0.89 / 1.16',
    });
    expect(noRegression([cell(1, 0.95, 1.1), cell(8, 0.88, 1.1)])?.status).toBe('missed');
    expect(noRegression([cell(1, 0.95, 1.17), cell(8, 0.95, 1.1)])?.status).toBe('missed');
  });

  it('is missed, never met, on an unmeasured ratio, and not run without the figure', () => {
    expect(noRegression([cell(1, Number.NaN, 1.0)])?.status).toBe('missed');
    expect(noRegression(undefined)?.status).toBe('not run');
  });
});
