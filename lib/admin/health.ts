import { deadLetterDepth } from './counts.js';
import type { MetricCounts } from './deps.js';
import { type AdminDeps, adminClock } from './deps.js';

/** Whether the admin API reaches its table and DLQ, and the host's worker counters when it keeps them. */
interface HealthReport {
  status: 'ok' | 'degraded';
  at: number;
  checks: { jobsTable: 'ok' | 'unreachable'; deadLetterQueue: 'ok' | 'unreachable' | 'not configured' };
  metrics?: MetricCounts;
}

/**
 * One cheap read of the jobs table (a one-item Query of a parked index) and one of the DLQ's attributes.
 * Never throws: an unreachable dependency is `degraded` with the failing check named.
 */
async function checkHealth(deps: AdminDeps): Promise<HealthReport> {
  const table = await deps.store.maintenance
    .probe()
    .then(() => 'ok' as const)
    .catch(() => 'unreachable' as const);
  const dlq = deps.deadLetterQueueUrl
    ? (await deadLetterDepth(deps)).available
      ? ('ok' as const)
      : ('unreachable' as const)
    : ('not configured' as const);
  const metrics = deps.metrics ? await deps.metrics().catch(() => undefined) : undefined;
  return {
    status: table === 'ok' && dlq !== 'unreachable' ? 'ok' : 'degraded',
    at: adminClock(deps).now(),
    checks: { jobsTable: table, deadLetterQueue: dlq },
    ...(metrics ? { metrics } : {}),
  };
}

export { checkHealth, type HealthReport };
