import { writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { beforeAll, inject, type RunnerTask, type RunnerTestSuite } from 'vitest';
import { CHAOS_MODE } from './chaos-mode.js';
import { emptyCounts, type ReliabilityCounts, verdictLine } from './counts.js';

/** Tests of a suite (nested suites included) that failed or, though meant to run, never passed or skipped. */
function failedTests(task: RunnerTask, file: string): string[] {
  if (task.type === 'suite') {
    const own = task.result?.state === 'fail' ? [`${file} > ${task.name || 'setup'} (hook)`] : [];
    return [...own, ...task.tasks.flatMap((child) => failedTests(child, file))];
  }
  if (task.mode !== 'run') return [];
  const state = task.result?.state;
  return state === 'pass' || state === 'skip' ? [] : [`${file} > ${task.name}`];
}

/**
 * The counts of one test file. Create it inside the file's `describe` (it registers a hook there to see
 * the suite). `publish` prints the file's verdict line and leaves a JSON file in the run's report folder,
 * from which the summary reporter prints the total (test files run in separate processes).
 */
class ReliabilityReport {
  readonly counts = emptyCounts();
  private suite: RunnerTestSuite | undefined;

  constructor(private readonly file: string) {
    // vitest requires a destructuring pattern as a hook's first parameter; the suite is the second.
    // biome-ignore lint/correctness/noEmptyPattern: no fixture is used
    beforeAll(({}, suite) => {
      this.suite = suite as RunnerTestSuite;
    });
  }

  /** Adds `value` to one figure. */
  add(figure: keyof ReliabilityCounts, value = 1): void {
    this.counts[figure] += value;
  }

  /** Counts a model replay's histories, checked steps and illegal steps into this file's figures. */
  addReplay(tally: { histories: number; steps: number; illegal: readonly unknown[] }): void {
    this.counts.historiesReplayed += tally.histories;
    this.counts.stepsReplayed += tally.steps;
    this.counts.illegalSteps += tally.illegal.length;
  }

  /** Prints this file's verdict (FAILED when any of its tests failed so far) and stores its counts for the total. */
  async publish(): Promise<void> {
    const name = basename(this.file);
    const failures = this.suite ? failedTests(this.suite, name) : [`${name} > setup did not run`];
    console.log(`[leasefence reliability] ${name} (${CHAOS_MODE}): ${verdictLine(this.counts, failures)}`);
    const folder = inject('reliabilityReportDir');
    if (!folder) return;
    const target = join(folder, `${name}-${process.pid}-${Date.now()}.json`);
    await writeFile(target, JSON.stringify({ file: name, counts: this.counts, failures }), 'utf8');
  }
}

export { failedTests, ReliabilityReport };
