import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * Runs a bench child (TypeScript through tsx, or a built JavaScript file with `loader: 'none'`) with its config
 * as one JSON argument and returns the JSON lines it printed, parsed. A non-zero exit, or no JSON line, rejects with the end of its stderr; a child still running
 * after `timeoutMs` is killed (a hang detector: no figure is decided by it).
 */
function runJsonChild<Line>(
  script: string,
  config: Record<string, unknown>,
  options: { name: string; nodeFlags?: readonly string[]; timeoutMs: number; loader?: 'tsx' | 'none' },
): Promise<Line[]> {
  return new Promise((resolve, reject) => {
    const loader = options.loader === 'none' ? [] : ['--import', 'tsx'];
    const args = [...(options.nodeFlags ?? []), ...loader, script, JSON.stringify(config)];
    const child = spawn(process.execPath, args, {
      cwd: REPO_ROOT,
      env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      const lines = stdout.split('\n').filter((line) => line.startsWith('{'));
      if (code !== 0 || lines.length === 0) {
        return reject(new Error(`${options.name} child exited with ${code}: ${stderr.slice(-1000)}`));
      }
      resolve(lines.map((line) => JSON.parse(line) as Line));
    });
  });
}

export { runJsonChild };
