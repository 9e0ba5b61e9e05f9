#!/usr/bin/env node
// The `leasefence` bin: loads the TypeScript CLI through tsx in this process (no build step, no child process),
// so signals reach the CLI directly and `start` can shut down cleanly on Ctrl-C.
let register;
try {
  ({ register } = await import('tsx/esm/api'));
} catch {
  console.error(
    'leasefence: the CLI runs its TypeScript sources through tsx, which is not installed here (npm install tsx)',
  );
  process.exit(1);
}
register();
const { runCli } = await import('./main.ts');
await runCli(process.argv.slice(2));
