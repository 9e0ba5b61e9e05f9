/** CloudWatch namespace of every leasefence metric (EMF through the function logs). */
const METRIC_NAMESPACE = 'Leasefence';

/**
 * Metric names shared by the handlers (which emit them) and the CDK construct (which graphs and alarms on
 * them). Defined once here so a rename cannot silently break an alarm.
 */
const MetricName = {
  /** A claim succeeded (first delivery or re-claim). */
  Claims: 'Claims',
  /** A claim took over an expired lease from another attempt. */
  Takeovers: 'Takeovers',
  /** A fenced write to a protected record was rejected: a newer claim wrote it. */
  StaleFenceRejected: 'StaleFenceRejected',
  /** A work-item transition found the fence superseded; the worker stopped. */
  OwnershipLost: 'OwnershipLost',
  /**
   * A record's `writer_epoch` is above every fence the jobs table has issued for its job (the jobs table was restored
   * to an earlier point than the record tables): the job was parked `restore_mismatch`. Stop and raise the fences.
   */
  RestoreMismatch: 'RestoreMismatch',
  /** A fence refused a job's write for a reason other than a newer claim (a bug in the job's writes). */
  FenceRefusedByJob: 'FenceRefusedByJob',
  /** Outcomes by state. */
  Succeeded: 'Succeeded',
  FailedTerminal: 'FailedTerminal',
  RetryScheduled: 'RetryScheduled',
  Unknown: 'Unknown',
  Quarantined: 'Quarantined',
  /** A message of a job type switched off in this deployment was acknowledged; its row waits queued. */
  Deferred: 'Deferred',
  /** A job found its provider's budget empty and waited in process (short, bounded) before its call. */
  RateLimitWaited: 'RateLimitWaited',
  /**
   * A job found its provider's budget empty for longer than it waits in process: back to queued (no attempt used)
   * with a delayed wake-up. Jobs waiting on a budget: this count over time (the RateLimitDeferrals alarm watches it).
   */
  RateLimitDeferred: 'RateLimitDeferred',
  /**
   * Seconds a job has waited on a provider budget since it first went back to queued for it: emitted each time it
   * waits again and when it finally gets its token (gauge, no dimension but the service's; its Maximum is what the
   * construct's RateLimitWait alarm watches).
   */
  RateLimitWaitSeconds: 'RateLimitWaitSeconds',
  /** A heartbeat was due but the handler reported no progress since the last one, so the lease was not renewed. */
  HeartbeatSkippedNoProgress: 'HeartbeatSkippedNoProgress',
  /** A lease renewal (heartbeat write) failed with an error other than a lost fence: the attempt is in lease doubt and starts no new effect. */
  LeaseRenewalFailed: 'LeaseRenewalFailed',
  /** An attempt in lease doubt tried to start an effect (record write, transaction, step, provider effect): refused before anything was sent. */
  EffectRefusedInLeaseDoubt: 'EffectRefusedInLeaseDoubt',
  /** Shadow mode: a shadow start or end write failed or was refused; the wrapped handler ran unchanged, the report misses it. */
  ShadowWriteFailed: 'ShadowWriteFailed',
  /** Shadow mode: the team's identify function threw or returned an invalid identity; that message was not recorded. */
  ShadowIdentityFailed: 'ShadowIdentityFailed',
  /** A job found a concurrency limit of its type full: queued again, not an attempt (README, "Concurrency limits"). */
  ConcurrencyWaits: 'ConcurrencyWaits',
  /**
   * Seconds a job has waited for a concurrency slot, emitted each time it waits again and when it gets its slot
   * (gauge; its Maximum is what the construct's ConcurrencyWait alarm watches).
   */
  ConcurrencyWaitSeconds: 'ConcurrencyWaitSeconds',
  /**
   * A slot was taken from a holder whose lease had expired: that holder may still be running, so the limit can be
   * exceeded by one for each such re-grant (README, "Concurrency limits").
   */
  ConcurrencySlotRegranted: 'ConcurrencySlotRegranted',
  /** Age of the oldest item parked as unknown (emitted by the sweeper). */
  OldestUnknownAgeSeconds: 'OldestUnknownAgeSeconds',
  /** Age of the oldest job awaiting approval (emitted by the sweeper). */
  OldestAwaitingApprovalAgeSeconds: 'OldestAwaitingApprovalAgeSeconds',
  /** Sweeper: jobs awaiting approval past their expiry, cancelled. */
  ApprovalsExpired: 'ApprovalsExpired',
  /** Sweeper: expired, exhausted leases parked as unknown. */
  SweptToUnknown: 'SweptToUnknown',
  /** Sweeper: wake-up messages re-sent for expired leases with attempts left, due retries and lost wake-ups. */
  Resignalled: 'Resignalled',
  /** Schedule tick: an occurrence's job was created. */
  ScheduleTicks: 'ScheduleTicks',
  /** Schedule tick: a delivery of a tick whose job already existed (a duplicate or late delivery): nothing written. */
  ScheduleTickReplays: 'ScheduleTickReplays',
  /** Schedule tick: ticks of the schedule's recent window (past the retry window) that have no job. */
  ScheduleTicksMissed: 'ScheduleTicksMissed',
  /** Schedule tick: a tick refused with nothing written (unknown schedule, bad input, ahead of the clock). */
  ScheduleTicksRefused: 'ScheduleTicksRefused',
  /**
   * Schedule tick, under `service` + `Schedule` only: a delivery of that schedule's tick landed (created or replay).
   * Its absence for longer than the schedule's longest gap plus slack is the schedule's silence alarm.
   */
  ScheduleTickDeliveries: 'ScheduleTickDeliveries',
} as const;

/** Dimension Powertools Metrics adds to every metric; its value is POWERTOOLS_SERVICE_NAME. */
const METRIC_SERVICE_DIMENSION = 'service';

/**
 * Dimension of the per-job-type copy of the metrics in JOB_TYPE_METRICS (the construct routes each job type's
 * alarms on it). Job types are registered names, never identifiers, so they are not hashed.
 */
const METRIC_JOB_TYPE_DIMENSION = 'JobType';

/**
 * Dimension of ScheduleTickDeliveries: the schedule's declared name (a name in the template, never an identifier,
 * so not hashed).
 */
const METRIC_SCHEDULE_DIMENSION = 'Schedule';

/** Metrics emitted a second time under `service` + `JobType` (registered job types only, never a message's claim). */
const JOB_TYPE_METRICS = [
  MetricName.Unknown,
  MetricName.Quarantined,
  MetricName.StaleFenceRejected,
  MetricName.EffectRefusedInLeaseDoubt,
  MetricName.LeaseRenewalFailed,
] as const;

/** One of the metric names above. */
type MetricName = (typeof MetricName)[keyof typeof MetricName];

/**
 * The `service` dimension every handler emits under: POWERTOOLS_SERVICE_NAME, set by the construct on all
 * three functions, so the alarms (which filter on it) see the worker's and the sweeper's metrics alike.
 */
function serviceName(env: NodeJS.ProcessEnv = process.env): string {
  return env.POWERTOOLS_SERVICE_NAME ?? 'leasefence';
}

export {
  JOB_TYPE_METRICS,
  METRIC_JOB_TYPE_DIMENSION,
  METRIC_NAMESPACE,
  METRIC_SCHEDULE_DIMENSION,
  METRIC_SERVICE_DIMENSION,
  MetricName,
  serviceName,
};
