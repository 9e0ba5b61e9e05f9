import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { SerializedError } from 'vitest';
import type { Reporter, TestModule, Vitest } from 'vitest/node';
import { CHAOS_MODE } from './chaos-mode.js';
import { emptyCounts, type ReliabilityCounts, verdictLine } from './counts.js';

/** Whether a test module is one of the reliability files. */
function isReliabilityModule(module: TestModule): boolean {
  return /[/\\]test[/\\]reliability[/\\][^/\\]+\.test\.ts$/.test(module.moduleId);
}

/**
 * Every failure of the reliability modules, as `file > test`: failed tests, errors outside tests (hooks,
 * imports), and a module that never finished. Unhandled errors of the run count once.
 */
function reliabilityFailures(modules: ReadonlyArray<TestModule>, unhandled: ReadonlyArray<SerializedError>): string[] {
  const failures: string[] = [];
  for (const module of modules.filter(isReliabilityModule)) {
    const file = basename(module.moduleId);
    for (const test of module.children.allTests('failed')) failures.push(`${file} > ${test.fullName}`);
    for (const suite of module.children.allSuites()) {
      for (const error of suite.errors())
        failures.push(`${file} > ${suite.fullName}: ${error.name ?? 'error'} in a hook`);
    }
    for (const error of module.errors()) failures.push(`${file} > ${error.name ?? 'error'} outside a test`);
    if (module.state() === 'pending' || module.state() === 'queued') failures.push(`${file} > did not finish`);
  }
  if (unhandled.length > 0) failures.push(`${unhandled.length} unhandled error(s)`);
  return failures;
}

/** Sums the counts every file left in the folder. */
function readCounts(folder: string): { files: number; total: ReliabilityCounts } {
  const names = readdirSync(folder).filter((name) => name.endsWith('.json'));
  const total = emptyCounts();
  for (const name of names) {
    const { counts } = JSON.parse(readFileSync(join(folder, name), 'utf8')) as { counts: ReliabilityCounts };
    for (const figure of Object.keys(total) as Array<keyof ReliabilityCounts>) total[figure] += counts[figure] ?? 0;
  }
  return { files: names.length, total };
}

/**
 * Prints the reliability TOTAL line after the run: a verdict over the test results vitest itself recorded
 * (so an assertion that failed before its tally ran still fails the line), with the counts the files left in
 * the folder this reporter provides as `reliabilityReportDir`. Nothing when no reliability file ran.
 */
class ReliabilitySummaryReporter implements Reporter {
  private folder = '';

  onInit(vitest: Vitest): void {
    const folder = mkdtempSync(join(tmpdir(), 'leasefence-reliability-'));
    this.folder = folder;
    vitest.provide('reliabilityReportDir', folder);
    process.once('exit', () => rmSync(folder, { recursive: true, force: true }));
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError>): void {
    const ran = modules.filter(isReliabilityModule).length;
    const { total } = readCounts(this.folder);
    // Emptied for a watch-mode rerun; the folder itself lives until the process exits.
    for (const name of readdirSync(this.folder)) rmSync(join(this.folder, name), { force: true });
    if (ran === 0) return;
    const line = verdictLine(total, reliabilityFailures(modules, unhandledErrors));
    console.log(`[leasefence reliability] TOTAL ${CHAOS_MODE}, ${ran} files: ${line}`);
  }
}

declare module 'vitest' {
  export interface ProvidedContext {
    reliabilityReportDir: string;
  }
}

export { ReliabilitySummaryReporter, reliabilityFailures };
