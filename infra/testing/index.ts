/**
 * `leasefence/testing`: what a user's own test suite needs to run leasefence on real local engines.
 * The embedded engines (dynalite, fauxqs) are optional peer dependencies: install them as devDependencies.
 */
export { ManualClock } from '../../lib/clock.js';
export { jobsTableDefinition, payloadsTableDefinition } from '../../lib/table.js';
export { EngineNotInstalledError, type RunningEngine, startDynalite, startSqsEngine } from '../local/engines.js';
