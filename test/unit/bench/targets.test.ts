import { describe, expect, it } from 'vitest';
import { runMeta } from '../../bench/report/results.js';
import { evaluateTargets, type TargetRow } from '../../bench/report/targets.js';
import type { RunSample, ThroughputMode, ThroughputRow } from '../../bench/scenarios/throughput.js';

/** A throughput row whose medians are the given worker CPU per job (the rest is irrelevant to the CPU target). */
function row(mode: ThroughputMode, concurrency: number, leasefenceCpu: number, peerCpu: number): ThroughputRow {
  const summary = (cpuMsPerJob: number) => {
    const sample: RunSample = {
      jobsPerSecond: 100,
      p50Ms: 1,
      p99Ms: 2,
      requestsPerJob: 3,
      cpuMsPerJob,
      engineCpuMsPerJob: 1,
    };
    return { ...sample, samples: [sample] };
  };
  return { mode, concurrency, leasefence: summary(leasefenceCpu), peer: summary(peerCpu), ratio: 1 };
}

function cpuTarget(rows: ThroughputRow[]): TargetRow {
  const target = evaluateTargets({ meta: runMeta('quick'), throughput: rows }).find((t) => t.figure === '2 (CPU)');
  if (!target) throw new Error('no CPU target row');
  return target;
}

describe('figure 2 (CPU): judged only against the peer with the same SDK options', () => {
  it('is missed when the same-options fenced put costs leasefence more, however a differently configured peer fares', () => {
    const target = cpuTarget([
      row('side-effect', 1, 1.1, 1.0),
      row('side-effect', 8, 0.9, 1.0),
      // A peer given cacheMiddleware, which leasefence does not use: reported, never judged.
      row('side-effect-peer-cached', 1, 1.1, 2.0),
      row('side-effect-peer-cached', 8, 0.9, 2.0),
    ]);

    expect(target.status).toBe('missed');
    expect(target.measured).toBe('c=1: 1.10, c=8: 0.90');
    expect(target.note).toContain('Missed in this run');
    expect(target.note).toContain("against a peer given the SDK's cacheMiddleware c=1: 0.55, c=8: 0.45");
  });

  it('is met when every same-options fenced put costs leasefence no more, even if a cached peer costs less', () => {
    const target = cpuTarget([row('side-effect', 1, 0.9, 1.0), row('side-effect-peer-cached', 1, 0.9, 0.5)]);

    expect(target.status).toBe('met');
    expect(target.note).toContain('c=1: 1.00 → 0.50 ms');
  });

  it('is not run, never met, without the judged rows', () => {
    expect(cpuTarget([row('side-effect-peer-cached', 1, 0.5, 1.0)]).status).toBe('not run');
  });
});
