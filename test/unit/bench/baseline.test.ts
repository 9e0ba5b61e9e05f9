import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { HandlerBatchRow, HandlerRunSample } from '../../bench/handler/types.js';
import { baselineHandlerSection, baselineInitSection } from '../../bench/report/baseline-sections.js';
import { handlerSection } from '../../bench/report/handler-sections.js';
import type { BundleReport, BundleRow } from '../../bench/scenarios/bundles.js';
import type { HandlerBatchReport } from '../../bench/scenarios/handler-batches.js';
import { BaselineError, baselineOption, prepareBaseline, resolveBaselineCommit } from '../../bench/support/baseline.js';
import { RulesFloor } from '../../bench/support/rules-floor.js';
import { median } from '../../bench/support/stats.js';

// `npm run bench -- --baseline=<commit>` (test/bench/support/baseline.ts): the option's validation and the rows it
// adds to figures 5 and 9. No benchmark runs here.

const HEAD = spawnSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8' }).stdout.trim();

describe('--baseline=<commit>: validation', () => {
  it('is absent without the option, and refuses an empty value', () => {
    expect(baselineOption(['--only=5'])).toBeUndefined();
    expect(baselineOption(['--only=5', '--baseline=be0ec7e'])).toBe('be0ec7e');
    expect(() => baselineOption(['--baseline='])).toThrow(BaselineError);
  });

  it('refuses a commit git does not know, naming it, and an option-like ref', () => {
    expect(() => resolveBaselineCommit('no-such-commit-anywhere')).toThrow(
      /--baseline=no-such-commit-anywhere: not a commit of this repository/,
    );
    expect(() => resolveBaselineCommit('--all')).toThrow(BaselineError);
    expect(() => resolveBaselineCommit('0123456789abcdef0123456789abcdef01234567')).toThrow(BaselineError);
    expect(() => prepareBaseline('no-such-commit-anywhere')).toThrow(BaselineError);
  });

  it('resolves a known commit to its full and short ids', () => {
    expect(resolveBaselineCommit('HEAD')).toEqual({ commit: HEAD, short: HEAD.slice(0, 7) });
  });

  it("checks the commit's files out beside this repository's node_modules, and removes them", () => {
    const baseline = prepareBaseline('HEAD');
    try {
      expect(baseline.label).toBe(`worker @ ${HEAD.slice(0, 7)}`);
      expect(existsSync(baseline.workerEntry)).toBe(true);
      expect(existsSync(baseline.handlerEntry)).toBe(true);
      expect(lstatSync(join(baseline.workerEntry, '../../node_modules')).isSymbolicLink()).toBe(true);
    } finally {
      baseline.remove();
    }
    expect(existsSync(baseline.workerEntry)).toBe(false);
  });
});

/** A figure 5 row whose init took `samples` ms, one per round. */
function row(name: BundleRow['name'], samples: number[], bytes: number): BundleRow {
  return {
    name,
    sdkExternalBytes: bytes,
    sdkBundledBytes: undefined,
    initSdkExternal: { name, medianMs: median(samples), p90Ms: Math.max(...samples), runs: samples.length, samples },
    initSdkBundled: undefined,
  };
}

const rounds = (value: number) => Array.from({ length: 11 }, () => value);

describe('--baseline=<commit>: the rows it adds', () => {
  it("figure 5: the baseline's worker beside today's, ÷ peer, share above the floor, and today ÷ baseline", () => {
    const report: BundleReport = {
      rows: [
        row('worker', rounds(130), 217_000),
        row(RulesFloor.worker, rounds(110), 75_000),
        row('worker @ abc1234', rounds(125), 210_000),
        row('powertools-idempotency', rounds(100), 50_000),
      ],
      synthSeconds: 1,
      coldInvocation: [],
      composition: [],
      baseline: { commit: 'abc1234'.padEnd(40, '0'), label: 'worker @ abc1234' },
    };
    const text = baselineInitSection(report);
    expect(text).toContain('| worker (today) | 217.0 kB | 1.30 (1.30–1.30) | 0.20 (0.20–0.20) |');
    expect(text).toContain('| worker @ abc1234 | 210.0 kB | 1.25 (1.25–1.25) | 0.15 (0.15–0.15) |');
    expect(text).toContain('| today ÷ worker @ abc1234 |  | 1.04 (1.04–1.04) |  |');
    expect(baselineInitSection({ ...report, baseline: undefined })).toBe('');
  });

  it('figure 9: per concurrency, the baseline ÷ peer and today ÷ baseline with its interval', () => {
    const sample: HandlerRunSample = {
      jobs: 100,
      batches: 10,
      batchItemFailures: 0,
      jobsPerSecond: 400,
      batchP50Ms: 20,
      batchP99Ms: 30,
      cpuMsPerJob: 1.2,
      engineCpuMsPerJob: 1,
      writesPerJob: 3,
      readsPerJob: 0,
    };
    const cell = (concurrency: number): HandlerBatchRow => ({
      mode: 'fenced-record',
      concurrency,
      leasefence: sample,
      peer: sample,
      jobsPerSecondRatio: 0.9,
      cpuPerJobRatio: 1.2,
      warmupJobs: 40,
      baseline: {
        summary: { ...sample, jobsPerSecond: 420, cpuMsPerJob: 1.1, engineCpuMsPerJob: 1.3 },
        jobsPerSecondRatio: 0.95,
        cpuPerJobRatio: 1.1,
        todayOverBaseline: {
          jobsPerSecond: { ratio: 0.97, low: 0.9, high: 1.02 },
          cpuPerJob: { ratio: 1.08, low: 1.01, high: 1.15 },
        },
      },
    });
    const report: HandlerBatchReport = {
      rows: [cell(1), cell(8), { ...cell(1), mode: 'protocol', baseline: undefined }],
      cpuPinning: 'not pinned',
      batchSize: 10,
      recordsWritten: { leasefence: 0, peer: 0 },
      baseline: { commit: 'abc1234'.padEnd(40, '0'), label: 'worker @ abc1234' },
    };
    const text = baselineHandlerSection(report);
    expect(text).toContain('| 1 | 420 | 0.95 | 0.97 (0.90–1.02) | 1.10 | 1.10 | 1.08 (1.01–1.15) | 1.00 / 1.30 |');
    expect(text).toContain('| 8 | 420 | 0.95 | 0.97 (0.90–1.02) | 1.10 | 1.10 | 1.08 (1.01–1.15) | 1.00 / 1.30 |');
    expect(text.split('\n').filter((line) => line.startsWith('| '))).toHaveLength(4);
    expect(handlerSection(report)).toContain('**Against worker @ abc1234**');
    expect(handlerSection({ ...report, baseline: undefined })).not.toContain('Against');
  });
});
