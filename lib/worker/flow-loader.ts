import { loadOnFirstUse } from '../internal/first-use.js';

/** The rate gate (rate-gate.ts), loaded by the first job type that declares a rate limit, never at import. */
const loadRateGate = loadOnFirstUse(() => import('./rate-gate.js'));

export { loadRateGate };
