/**
 * `leasefence/testing`: what a user's own test suite needs to run leasefence on real local engines, and the
 * go/no-go conformance scenarios for their own job types (also behind `leasefence check`).
 * The embedded engines (dynalite, fauxqs) are optional peer dependencies: install them as devDependencies.
 * `localStackClients()` returns SDK clients pointed at the local stack `leasefence start` runs.
 */
export { ManualClock } from '../../lib/clock.js';
export { jobsTableDefinition, payloadsTableDefinition } from '../../lib/store/index.js';
export { type LocalStackClients, type LocalStackClientsOptions, localStackClients } from '../local/clients.js';
export { EngineNotInstalledError, type RunningEngine, startDynalite, startSqsEngine } from '../local/engines.js';
export { LocalStackNotRunningError } from '../local/errors.js';
export type { BenchWorker, Delivery, PrepareTenant } from './bench.js';
export { type ConformanceEngine, startConformanceEngine } from './conformance-engine.js';
export { CLASS_CLAIMS, CONTROL_NAMES, type ControlResult } from './controls.js';
export type { ReconcileFinding, UnfencedWrite } from './findings.js';
export type { JobConformanceModule } from './module.js';
export {
  applicableScenarios,
  type ConformanceOptions,
  type ConformanceReport,
  runConformance,
  SCENARIOS,
} from './run-conformance.js';
export { ScenarioId, type ScenarioResult } from './scenario-support.js';
export { describeJobConformance } from './vitest.js';
