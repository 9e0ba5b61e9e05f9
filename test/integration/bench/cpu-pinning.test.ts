import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { allowedCpus, describeSplit, splitCpus, unpinEngine } from '../../bench/support/cpu-pinning.js';

/** The CPUs the kernel lets `pid` run on, as /proc reports them. */
function cpusOf(pid: number): string {
  return /^Cpus_allowed_list:\s*(.+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? '';
}

const hasTaskset = (() => {
  try {
    execFileSync('taskset', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
const cpus = allowedCpus();
const canSplit = hasTaskset && cpus.length >= 2;

describe('bench CPU pinning', () => {
  let child: ChildProcess | undefined;
  afterEach(() => {
    child?.kill();
    child = undefined;
  });

  it('reads this process affinity as a list of CPU numbers', () => {
    expect(cpus.length).toBeGreaterThanOrEqual(1);
    expect(cpus.every((cpu) => Number.isInteger(cpu) && cpu >= 0)).toBe(true);
    expect(new Set(cpus).size).toBe(cpus.length);
  });

  it.skipIf(!canSplit)(
    'gives a real engine process the last CPU, the worker the rest, and gives it every CPU back (skipped: needs taskset and two CPUs)',
    () => {
      child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
      const pid = child.pid as number;
      const split = splitCpus(pid);

      expect(split).toEqual({ pinned: true, engine: cpus.slice(-1), worker: cpus.slice(0, -1) });
      expect(cpusOf(pid)).toBe(String(cpus.at(-1)));
      expect(describeSplit(split)).toContain(`engine pinned to CPU ${cpus.at(-1)}`);

      unpinEngine(pid);
      expect(cpusOf(pid)).toBe(cpusOf(process.pid));
    },
  );

  it('pins nothing when the engine shares this process, and says why', () => {
    const split = splitCpus(undefined);
    expect(split).toEqual({ pinned: false, reason: 'the engine runs in this process' });
    expect(describeSplit(split)).toBe('not pinned: the engine runs in this process');
  });

  it.skipIf(!canSplit)(
    'reports an engine it cannot pin instead of throwing (skipped: needs taskset and two CPUs)',
    () => {
      const split = splitCpus(2 ** 22 + 12_345);
      expect(split.pinned).toBe(false);
      expect(describeSplit(split)).toBe(`not pinned: could not pin the engine (no process ${2 ** 22 + 12_345})`);
    },
  );
});
