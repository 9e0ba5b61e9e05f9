import { writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { inject } from 'vitest';
import { CHAOS_MODE } from './chaos-mode.js';
import { emptyCounts, type ReliabilityCounts, summaryLine } from './counts.js';

/**
 * The counts of one test file. `publish` prints the file's line and leaves a JSON file in the run's report
 * folder, from which the global teardown prints the total (test files run in separate processes).
 */
class ReliabilityReport {
  readonly counts = emptyCounts();

  constructor(private readonly file: string) {}

  /** Adds `value` to one figure. */
  add(figure: keyof ReliabilityCounts, value = 1): void {
    this.counts[figure] += value;
  }

  /** Prints this file's line and stores its counts for the total. */
  async publish(): Promise<void> {
    const name = basename(this.file);
    console.log(`[leasefence reliability] ${name} (${CHAOS_MODE}): ${summaryLine(this.counts)}`);
    const folder = inject('reliabilityReportDir');
    if (!folder) return;
    const target = join(folder, `${name}-${process.pid}-${Date.now()}.json`);
    await writeFile(target, JSON.stringify({ file: name, counts: this.counts }), 'utf8');
  }
}

export { ReliabilityReport };
