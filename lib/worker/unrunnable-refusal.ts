import { MetricName } from '../metric-names.js';
import type { UnrunnableRefusal, WorkItemStore } from '../store/index.js';
import type { Telemetry } from '../telemetry.js';

/**
 * A message refused because this worker runs neither the version its row is bound to nor its job type: the refusal is
 * noted on the queued row (store.unrunnable), and the one that reaches the ceiling parks the row quarantined
 * (`no_worker_runs_version` / `no_worker_runs_job_type`, with the versions this worker runs) instead of leaving it to
 * be re-signalled and refused forever. A row this worker could run, or one not queued, is left as it is. Throws for
 * infrastructure errors (the message is redelivered).
 */
async function noteUnrunnable(store: WorkItemStore, telemetry: Telemetry, refusal: UnrunnableRefusal): Promise<void> {
  const outcome = await store.unrunnable.refused(refusal);
  if (outcome !== 'parked') return;
  const jobType = refusal.runsVersion === undefined ? undefined : refusal.jobType;
  telemetry.count(MetricName.Quarantined, 1, jobType);
  telemetry.warn('work item quarantined: no worker runs it', {
    identity: refusal.identity,
    ...(refusal.runsVersion !== undefined ? { runsVersion: refusal.runsVersion } : {}),
  });
}

export { noteUnrunnable };
