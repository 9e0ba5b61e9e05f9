import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

/** Which CPUs the engine and the worker get, or why they share them. */
type CpuSplit = { pinned: true; engine: number[]; worker: number[] } | { pinned: false; reason: string };

/** The CPUs this process may run on (its affinity, from /proc), in order. */
function allowedCpus(): number[] {
  const status = readFileSync('/proc/self/status', 'utf8');
  const list = /^Cpus_allowed_list:\s*(.+)$/m.exec(status)?.[1] ?? '';
  return list.split(',').flatMap((range) => {
    const [from, to] = range.split('-').map(Number);
    if (from === undefined || Number.isNaN(from)) return [];
    return Array.from({ length: (to ?? from) - from + 1 }, (_, offset) => from + offset);
  });
}

/** Pins every thread of `pid` to `cpus` with taskset; throws when there is no such process or taskset fails. */
function pinProcess(pid: number, cpus: readonly number[]): void {
  // taskset -a walks /proc/<pid>/task and succeeds on a process that is gone: look first.
  if (!existsSync(`/proc/${pid}/task`)) throw new Error(`no process ${pid}`);
  execFileSync('taskset', ['-a', '-p', '-c', cpus.join(','), String(pid)], { stdio: 'ignore' });
}

/**
 * Gives the engine process the last allowed CPU and the worker the others, so the worker's CPU per job is
 * its own (no engine work, and no contention with it, on its core). On one CPU, or without taskset (Linux
 * util-linux), nothing is pinned and the reason is returned for the report.
 */
function splitCpus(enginePid: number | undefined): CpuSplit {
  if (enginePid === undefined) return { pinned: false, reason: 'the engine runs in this process' };
  let cpus: number[];
  try {
    cpus = allowedCpus();
  } catch {
    return { pinned: false, reason: 'no /proc/self/status to read the CPU affinity from' };
  }
  if (cpus.length < 2) return { pinned: false, reason: `only ${cpus.length} CPU allowed` };
  const split = { engine: cpus.slice(-1), worker: cpus.slice(0, -1) };
  try {
    pinProcess(enginePid, split.engine);
  } catch (error) {
    return { pinned: false, reason: `could not pin the engine (${(error as Error).message.split('\n')[0]})` };
  }
  return { pinned: true, ...split };
}

/** Gives the engine back every CPU this process may use (after the figure that split them). */
function unpinEngine(enginePid: number): void {
  pinProcess(enginePid, allowedCpus());
}

/** One line for the report: where the engine and the worker ran. */
function describeSplit(split: CpuSplit): string {
  return split.pinned
    ? `engine pinned to CPU ${split.engine.join(',')}, worker to CPU ${split.worker.join(',')} (taskset)`
    : `not pinned: ${split.reason}`;
}

export { allowedCpus, type CpuSplit, describeSplit, pinProcess, splitCpus, unpinEngine };
