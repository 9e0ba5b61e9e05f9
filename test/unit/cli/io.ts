import type { Io } from '../../../infra/cli/output.js';

/** An Io that keeps what a command printed, for in-process CLI tests. */
function captureIo(now = Date.UTC(2026, 8, 13, 12, 0, 0)): Io & { stdout(): string; stderr(): string } {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out: (text) => out.push(text),
    err: (text) => err.push(text),
    isTTY: false,
    now: () => now,
    env: { LEASEFENCE_LOCAL_DIR: '/nonexistent/leasefence-unit-test' },
    stdout: () => out.join('\n'),
    stderr: () => err.join('\n'),
  };
}

export { captureIo };
