import type { RunnerTask } from 'vitest';
import { describe, expect, it } from 'vitest';
import type { TestModule } from 'vitest/node';
import { emptyCounts, verdictLine } from '../reliability/support/counts.js';
import { failedTests } from '../reliability/support/report.js';
import { reliabilityFailures } from '../reliability/support/summary-reporter.js';

const counts = { ...emptyCounts(), faultsInjected: 12, interleavings: 10_000, badInputs: 40 };

describe('verdictLine', () => {
  it('prints the figures, zeros included, when no test failed', () => {
    expect(verdictLine(counts, [])).toBe(
      'faults injected 12, interleavings 10000, bad inputs 40, invariant violations 0, lost jobs 0, duplicate effects 0; model replay not evaluated (no history recorded)',
    );
  });

  it('prints the model replay figures once histories were replayed, and never a 0 for a replay that did not run', () => {
    const replayed = { ...counts, historiesReplayed: 30, stepsReplayed: 400 };
    expect(verdictLine(replayed, [])).toContain('model replay: 30 histories, 400 steps checked, illegal steps 0');
    expect(verdictLine(counts, [])).not.toContain('illegal steps 0');
    const failed = verdictLine({ ...replayed, illegalSteps: 1 }, ['interleavings.test.ts > keeps every invariant']);
    expect(failed).toContain('illegal model steps 1 at least');
  });

  it('says FAILED with the failure count and names, and never claims zero violations, when a test failed', () => {
    const line = verdictLine(counts, ['interleavings.test.ts > keeps every invariant']);
    expect(line).toBe(
      'FAILED: 1 failed test (interleavings.test.ts > keeps every invariant); faults injected 12, interleavings 10000, bad inputs 40; safety figures not established',
    );
    expect(line).not.toMatch(/invariant violations 0|lost jobs 0|duplicate effects 0|illegal steps 0/);
  });

  it('keeps the safety figures that were counted, names five failures and counts the rest', () => {
    const failures = Array.from({ length: 7 }, (_, index) => `f.test.ts > t${index}`);
    const line = verdictLine({ ...counts, invariantViolations: 2 }, failures);
    expect(line).toMatch(/^FAILED: 7 failed tests \(f\.test\.ts > t0; .*; f\.test\.ts > t4; and 2 more\)/);
    expect(line).toContain('invariant violations 2 at least');
    expect(line).not.toContain('lost jobs 0');
  });
});

/** A runner task tree as vitest builds it (only the fields the report reads). */
function task(name: string, state: 'pass' | 'fail' | 'skip' | undefined, mode: 'run' | 'skip' = 'run'): RunnerTask {
  return { type: 'test', name, mode, ...(state ? { result: { state } } : {}) } as unknown as RunnerTask;
}

describe('failedTests (a file line)', () => {
  it('lists failed tests and tests that never ran, not passed or deliberately skipped ones, and failed hooks', () => {
    const suite = {
      type: 'suite',
      name: 'faults',
      mode: 'run',
      result: { state: 'fail' },
      tasks: [
        task('passes', 'pass'),
        task('fails', 'fail'),
        task('capability skip', 'skip', 'skip'),
        task('never ran', undefined),
      ],
    } as unknown as RunnerTask;
    expect(failedTests(suite, 'x.test.ts')).toEqual([
      'x.test.ts > faults (hook)',
      'x.test.ts > fails',
      'x.test.ts > never ran',
    ]);
  });
});

describe('reliabilityFailures (the TOTAL line)', () => {
  function module(
    moduleId: string,
    options: { failed?: string[]; hookErrors?: string[]; state?: string; errors?: string[] } = {},
  ): TestModule {
    return {
      moduleId,
      state: () => options.state ?? 'passed',
      errors: () => (options.errors ?? []).map((name) => ({ name })),
      children: {
        allTests: () => (options.failed ?? []).map((fullName) => ({ fullName })),
        allSuites: () => (options.hookErrors ?? []).map((name) => ({ fullName: 'suite', errors: () => [{ name }] })),
      },
    } as unknown as TestModule;
  }

  it('counts failed tests, hook and module errors, unfinished files and unhandled errors of reliability files only', () => {
    const failures = reliabilityFailures(
      [
        module('/repo/test/reliability/interleavings.test.ts', { failed: ['suite > keeps every invariant'] }),
        module('/repo/test/reliability/process-faults.test.ts', { hookErrors: ['TypeError'] }),
        module('/repo/test/reliability/fuzz-sqs.test.ts', { state: 'pending' }),
        module('/repo/test/reliability/network-faults.test.ts', { errors: ['SyntaxError'] }),
        module('/repo/test/unit/hashing.test.ts', { failed: ['not a reliability test'] }),
      ],
      [{ name: 'Error', message: 'boom' }],
    );
    expect(failures).toEqual([
      'interleavings.test.ts > suite > keeps every invariant',
      'process-faults.test.ts > suite: TypeError in a hook',
      'fuzz-sqs.test.ts > did not finish',
      'network-faults.test.ts > SyntaxError outside a test',
      '1 unhandled error(s)',
    ]);
  });

  it('finds nothing when every reliability test passed', () => {
    expect(reliabilityFailures([module('/repo/test/reliability/interleavings.test.ts')], [])).toEqual([]);
  });
});
