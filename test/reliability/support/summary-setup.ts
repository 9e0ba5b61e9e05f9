import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { CHAOS_MODE } from './chaos-mode.js';
import { emptyCounts, type ReliabilityCounts, summaryLine } from './counts.js';

/**
 * Global setup of the reliability summary: gives every test file a folder for its counts, and after the run
 * prints one total line over the files that reported (nothing when no reliability file ran).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const folder = await mkdtemp(join(tmpdir(), 'leasefence-reliability-'));
  project.provide('reliabilityReportDir', folder);
  return async () => {
    const files = (await readdir(folder)).filter((name) => name.endsWith('.json'));
    const total = emptyCounts();
    for (const name of files) {
      const { counts } = JSON.parse(await readFile(join(folder, name), 'utf8')) as { counts: ReliabilityCounts };
      for (const figure of Object.keys(total) as Array<keyof ReliabilityCounts>) total[figure] += counts[figure] ?? 0;
    }
    await rm(folder, { recursive: true, force: true });
    if (files.length === 0) return;
    console.log(`[leasefence reliability] TOTAL ${CHAOS_MODE}, ${files.length} files: ${summaryLine(total)}`);
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    reliabilityReportDir: string;
  }
}
