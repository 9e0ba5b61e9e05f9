// leasefence/testing: the go/no-go conformance scenarios for your own job types, for your test suite and for
// `leasefence check`. It starts embedded engines (dynalite, fauxqs), so it lives outside lib/.
export type { BenchWorker, Delivery, PrepareTenant } from './bench.js';
export { type ConformanceEngine, startConformanceEngine } from './conformance-engine.js';
export { CLASS_CLAIMS, CONTROL_NAMES, type ControlResult, type UnfencedWrite } from './controls.js';
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
