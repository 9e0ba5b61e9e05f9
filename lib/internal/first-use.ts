/*
 * Pay for what you use (issue #46): a capability the deployed jobs may not use (successors, approvals, flow control,
 * tracing, fault injection) costs nothing at a cold start. The pattern, for any new one:
 *
 *   1. Its module scope is imported by nothing on the init path but types (`import type`): the handler's module,
 *      the worker runtime and WorkItemStore refer to it only through a loader.
 *   2. The loader is `loadOnFirstUse(() => import('./its-module.js'))`, at module scope (a literal path, so esbuild
 *      bundles the module and keeps it out of module init: in the one-file ESM bundle it is wrapped and evaluated
 *      by the first call, never at import).
 *   3. The loader is called only on the path that uses the capability, behind what declares it (the job type's
 *      `approval`, a completion with successors, `tracing: true`), so a deployment without it never calls it.
 *   4. What must stay synchronous for the job's API (`ctx.enqueue` checks and returns at once) stays on the init
 *      path, as small as it can; the I/O behind it (the writes, the wake-ups) is what loads on first use.
 *   5. The `import()` sits in a module only the function that uses it bundles (lib/worker/, not WorkItemStore or a
 *      store room every function bundles), and the loaded module imports the store's index for types only: esbuild
 *      wraps a loaded module and everything it imports in lazy initialisers, in every bundle that holds the
 *      `import()` (measured: from WorkItemStore, +3.7 kB sweeper, +4.2 kB admin; a value from the store's index,
 *      +1 kB worker). Pass store values in, or import them from lib/ outside the store.
 *   6. No work at module scope in the loaded module either (schemas through z.lazy or builtOnce): a module holding
 *      declarations only costs little to evaluate, so what this saves is mostly what the module builds or loads.
 *   7. test/infra/init-path.test.ts pins it: the module is in the worker's bundle, not among what its init evaluates.
 *
 * The bytes stay in the one-file bundle (parsed at load; figure 5c's "on first use" column). Code that must not be
 * in a bundle at all unless the deployment asks for it is defined out at build time instead (the construct's
 * esbuild `define`, as FAULT_LAYER_CONSTANT does for the fault layer).
 */

/**
 * A loader that starts `load` (an `import()`) on its first call and hands every later call the same promise. A load
 * that fails rejects that call and is retried by the next one (a message that needed it is redelivered, not lost).
 */
function loadOnFirstUse<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => {
    loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };
}

export { loadOnFirstUse };
