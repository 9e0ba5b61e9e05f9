import { spawn } from 'node:child_process';

/**
 * Runs a command as a terminal would: on a pseudo-terminal (python3's pty module, in a new session whose
 * controlling terminal it is), waits for `ready` in its output, then types Ctrl-C (the byte 0x03, which the
 * terminal's line discipline turns into SIGINT for the whole foreground process group, as a real terminal does).
 * Resolves with everything it printed and its exit code (null when it had to be killed after `timeoutMs`).
 */
function ctrlCInTerminal(
  command: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; ready: RegExp; timeoutMs: number },
): Promise<{ output: string; code: number | null }> {
  const driver = `
import os, pty, sys, re, select, time, signal
ready = re.compile(sys.argv[1].encode())
deadline = time.monotonic() + float(sys.argv[2])
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[3], sys.argv[3:])
seen, sent = b'', False
while time.monotonic() < deadline:
    r, _, _ = select.select([fd], [], [], 0.2)
    if r:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
        sys.stdout.buffer.write(chunk); sys.stdout.flush()
    if not sent and ready.search(seen):
        os.write(fd, b'\\x03'); sent = True
else:
    os.killpg(pid, signal.SIGKILL)
    sys.exit(99)
_, status = os.waitpid(pid, 0)
sys.stdout.buffer.write(b'\\n[exit %d]\\n' % (os.waitstatus_to_exitcode(status) % 256))
`;
  return new Promise((done) => {
    const child = spawn('python3', ['-c', driver, options.ready.source, String(options.timeoutMs / 1000), ...command], {
      cwd: options.cwd,
      env: options.env,
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += String(chunk);
    });
    child.stderr.on('data', (chunk) => {
      output += String(chunk);
    });
    child.on('close', () => {
      const code = output.match(/\[exit (\d+)\]\s*$/);
      done({ output, code: code ? Number(code[1]) : null });
    });
  });
}

export { ctrlCInTerminal };
