import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import type { MetricName } from '../../lib/metric-names.js';

/**
 * The local stack's worker counters are shared by every process that runs workers against it: the stack's own
 * pollers count in its process, and another process (`leasefence demo`'s stalled workers) reports its counts in
 * `<dir>/metrics/<pid>.json`, a file only that process writes (atomically). The stack adds the reports naming
 * its own pid and start to its counts, so the admin API (and every console on it) shows all of them.
 */
const METRICS_FOLDER = 'metrics';

/** One process's report: which stack run it counted for, and its counts by MetricName. */
const reportSchema = z.strictObject({
  stackPid: z.number().int().positive(),
  stackStartedAt: z.string(),
  counts: z.record(z.string(), z.number().int().nonnegative()),
});

/** The stack run a report belongs to (a report of an earlier run on the same folder is ignored). */
interface StackRun {
  pid: number;
  startedAt: string;
}

/** Counts for a stack run in another process; `flush` writes them where the stack reads them. */
interface SharedCounter {
  count(metric: MetricName, value?: number): void;
  /** Writes the counts so far (temp file + rename: the stack never reads half a report). */
  flush(): Promise<void>;
}

/** A counter of this process for the stack run `run` on `dir` (see METRICS_FOLDER). */
function sharedCounter(dir: string, run: StackRun): SharedCounter {
  const counts: Record<string, number> = {};
  return {
    count: (metric, value = 1) => {
      counts[metric] = (counts[metric] ?? 0) + value;
    },
    flush: async () => {
      const folder = join(dir, METRICS_FOLDER);
      await mkdir(folder, { recursive: true });
      const path = join(folder, `${process.pid}.json`);
      const report = reportSchema.parse({ stackPid: run.pid, stackStartedAt: run.startedAt, counts });
      await writeFile(`${path}.tmp`, JSON.stringify(report), 'utf8');
      await rename(`${path}.tmp`, path);
    },
  };
}

/** The JSON value of `text`, or undefined when it is not JSON (a report being replaced, or a stray file). */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The sum of every report other processes wrote for this stack run; unreadable or foreign reports count nothing. */
async function sharedCounts(dir: string, run: StackRun): Promise<Record<string, number>> {
  const folder = join(dir, METRICS_FOLDER);
  const names = await readdir(folder).catch(() => [] as string[]);
  const sum: Record<string, number> = {};
  for (const name of names.filter((file) => file.endsWith('.json'))) {
    const parsed = reportSchema.safeParse(parseJson(await readFile(join(folder, name), 'utf8').catch(() => '')));
    if (!parsed.success || parsed.data.stackPid !== run.pid || parsed.data.stackStartedAt !== run.startedAt) continue;
    for (const [metric, value] of Object.entries(parsed.data.counts)) sum[metric] = (sum[metric] ?? 0) + value;
  }
  return sum;
}

/** Removes the reports folder (a stack starting or stopping on `dir`: earlier runs' reports mean nothing). */
async function clearSharedCounts(dir: string): Promise<void> {
  await rm(join(dir, METRICS_FOLDER), { recursive: true, force: true });
}

export { clearSharedCounts, type SharedCounter, type StackRun, sharedCounter, sharedCounts };
