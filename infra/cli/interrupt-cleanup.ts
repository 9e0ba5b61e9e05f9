/**
 * Work a command must finish before an interrupted CLI exits (main.ts runs these on Ctrl-C or SIGTERM, then
 * exits): `check --stack` deletes the rows it made in the stack. Bounded: a cleanup that hangs is cut off at
 * INTERRUPT_CLEANUP_MS so a signal still ends the process.
 */
const cleanups = new Set<() => Promise<void>>();

/** How long an interrupted command's cleanups may take before the process exits anyway. */
const INTERRUPT_CLEANUP_MS = 30_000;

/** Registers a cleanup to run if the process is interrupted; returns its unregistration (call it when done). */
function onInterrupt(cleanup: () => Promise<void>): () => void {
  cleanups.add(cleanup);
  return () => cleanups.delete(cleanup);
}

/** Runs every registered cleanup (each one even when another fails), at most INTERRUPT_CLEANUP_MS in all. */
async function runInterruptCleanups(): Promise<void> {
  const all = Promise.allSettled([...cleanups].map((cleanup) => cleanup()));
  let timer: NodeJS.Timeout | undefined;
  const cutOff = new Promise<void>((done) => {
    timer = setTimeout(done, INTERRUPT_CLEANUP_MS);
    timer.unref();
  });
  await Promise.race([all, cutOff]);
  clearTimeout(timer);
}

export { onInterrupt, runInterruptCleanups };
