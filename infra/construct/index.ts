/** The reusable CDK construct of leasefence and its helpers. */
export { type AlarmThresholds, DEFAULT_ALARM_THRESHOLDS } from './alarms.js';
export type { TableQuota } from './capacity-check.js';
export { AWS_LIMITS, LIMITS_READ_ON } from './capacity-limits.js';
export { type Assessment, assess, type CapacityTarget } from './capacity-model.js';
export { planDeadlineIndex } from './capacity-partitions.js';
export { type CapacityPlan, capacityPlanFor } from './capacity-plan.js';
export type { ProvisionedPollers } from './event-source.js';
export { FencedJobQueue } from './fenced-job-queue.js';
export { PackagedEntry } from './functions.js';
export { DEFAULT_IN_FLIGHT_THRESHOLD } from './in-flight-alarm.js';
export type { PrioritiesProps } from './priority-lanes.js';
export {
  type AdminRoutePrincipals,
  type DeploymentEnvironment,
  type FencedJobQueueProps,
  resolveProps,
} from './props.js';
export { minimumVisibilityTimeout } from './queues.js';
export { sessionBindingStatements } from './session-binding.js';
export { indexArn, tableFromDefinition } from './tables.js';
export {
  grantTenantScopedAccess,
  TENANT_SCOPABLE_ACTIONS,
  type TenantAccessOptions,
  type TenantScope,
  type TenantScopedAction,
} from './tenant-access.js';
export {
  type JobsIndexName,
  type WarmTarget,
  type WarmThroughputSettings,
  type WarmUnits,
  warmThroughputFor,
} from './warm-throughput.js';
