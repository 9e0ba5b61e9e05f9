/**
 * The slot store's module, loaded on first use, or undefined in a worker bundled without flow control: the construct
 * defines `process.env.LEASEFENCE_FLOW_CONTROL` as `'omitted'` for a worker without `flowControl`
 * (FLOW_CONTROL_CONSTANT), this folds to undefined at build time and esbuild leaves the slot code out of the bundle.
 */
function slotModuleLoader(): (() => Promise<typeof import('./slots.js')>) | undefined {
  return process.env.LEASEFENCE_FLOW_CONTROL === 'omitted' ? undefined : () => import('./slots.js');
}

export { slotModuleLoader };
