import { ConfigurationError } from '../errors.js';
import * as rateGate from './rate-gate.js';

/**
 * The rate gate (rate-gate.ts), for a job type that declares a rate limit; undefined in
 * a worker bundled without flow control (FLOW_CONTROL_CONSTANT `'omitted'` folds this at build time, and esbuild
 * leaves the gate and the budgets room out of the bundle; defineJob refuses a rate limit there, so none reaches it).
 */
const rateGateLoader = process.env.LEASEFENCE_FLOW_CONTROL === 'omitted' ? undefined : () => Promise.resolve(rateGate);

/** The rate gate; ConfigurationError in a worker bundled without it (nothing taken, the message is redelivered). */
function loadRateGate(): Promise<typeof import('./rate-gate.js')> {
  return rateGateLoader?.() ?? Promise.reject(new ConfigurationError('flow control is not bundled (flowControl)'));
}

export { loadRateGate };
