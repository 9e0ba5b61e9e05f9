import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { ReliabilitySummaryReporter } from './test/reliability/support/summary-reporter.js';

export default defineConfig({
  test: {
    globalSetup: ['./test/support/global-setup.ts'],
    include: [
      'test/unit/**/*.test.ts',
      'test/integration/**/*.test.ts',
      'test/infra/**/*.test.ts',
      'test/reliability/**/*.test.ts',
      'test/package/**/*.test.ts',
    ],
    // Hang detectors only: counts decide every verdict, so a loaded machine is slower, never red.
    testTimeout: 300_000,
    hookTimeout: 300_000,
    pool: 'forks',
    // At least two test files at once: most files wait (on leases, timers, engines and child processes) far more than
    // they compute, and vitest's default (one less than the cores) runs one file at a time on a 2-core machine. Measured
    // on a 2-core machine: the suite took 650 s with two workers against 1,302 s with one. Each file starts its own
    // engines and local stacks in their own temporary directories, so two files never share state.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // CI asks for a JSON report as well (LEASEFENCE_TEST_REPORT) so .ci/run can print one plain summary line.
    // The reliability summary is a reporter: its TOTAL line is a verdict over the recorded test results.
    reporters: [
      'default',
      new ReliabilitySummaryReporter(),
      ...(process.env.LEASEFENCE_TEST_REPORT
        ? [['json', { outputFile: process.env.LEASEFENCE_TEST_REPORT }] as ['json', { outputFile: string }]]
        : []),
    ],
    // The SDK's notice about the Node.js versions its future releases need is noise in test output (CI runs on 22).
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  },
});
