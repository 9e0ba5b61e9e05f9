import { ConfigurationError } from '../errors.js';
import { loadOnFirstUse } from '../internal/first-use.js';

/**
 * The rate gate (rate-gate.ts), loaded by the first job type that declares a rate limit, never at import; undefined in
 * a worker bundled without flow control (FLOW_CONTROL_CONSTANT `'omitted'` folds this at build time, and esbuild
 * leaves the gate and the budgets room out of the bundle).
 */
const rateGateLoader =
  process.env.LEASEFENCE_FLOW_CONTROL === 'omitted' ? undefined : loadOnFirstUse(() => import('./rate-gate.js'));

/** The rate gate; ConfigurationError in a worker bundled without it (nothing taken, the message is redelivered). */
function loadRateGate(): Promise<typeof import('./rate-gate.js')> {
  if (rateGateLoader === undefined) return Promise.reject(flowControlOmitted('a job type'));
  return rateGateLoader();
}

/**
 * Refuses, when the handler is made, job types that declare rate limits in a worker bundled without the rate gate:
 * ConfigurationError naming the construct prop, so none of them ever runs past its budget.
 */
function checkFlowControlBundled(jobs: readonly { type: string; flow?: { rateLimit?: unknown } }[]): void {
  const limited = jobs.find((job) => job.flow?.rateLimit !== undefined);
  if (limited !== undefined && rateGateLoader === undefined) throw flowControlOmitted(`job type ${limited.type}`);
}

function flowControlOmitted(who: string): ConfigurationError {
  return new ConfigurationError(
    `${who} declares flow.rateLimit, but this worker was bundled without flow control: set the construct's flowControl: true`,
  );
}

export { checkFlowControlBundled, loadRateGate };
