import { spawn } from 'node:child_process';

/** What a finished child printed and how it exited. */
interface ProcessRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `command args…` to its end and resolves with its output (UTF-8). With `stdin`, that text is its input;
 * without, its stdin is /dev/null (never a socket: bash would take itself for a remote shell and read the
 * machine's bashrc). Rejects only when the command cannot be started.
 */
function runProcess(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; stdin?: string },
): Promise<ProcessRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...args], {
      cwd: options.cwd,
      env: options.env,
      stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    if (options.stdin !== undefined) child.stdin?.end(options.stdin, 'utf8');
  });
}

export { type ProcessRun, runProcess };
