import type { Logger } from '@aws-lambda-powertools/logger';
import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { DEVELOPMENT_IDENTIFIER_KEY, type IdentifierKeySource, pseudonyms } from './hashing.js';
import type { JobIdentity } from './identity.js';
import { METRIC_JOB_TYPE_DIMENSION, type MetricName } from './metric-names.js';

/** Log fields: an identity is pseudonymised before it leaves the process; payloads never appear here. */
interface LogFields {
  identity?: JobIdentity;
  jobType?: string;
  fence?: number;
  attempt?: number;
  [field: string]: unknown;
}

/** Where the runtime reports counts and events. The default discards everything. */
interface Telemetry {
  /**
   * Adds `value` (default 1) to `metric`; with `jobType` (a registered job type, never a message's unchecked
   * claim) the count is also emitted under that type's JobType dimension, which its alert route watches.
   */
  count(metric: MetricName, value?: number, jobType?: string): void;
  gauge(metric: MetricName, value: number, unit?: 'Seconds' | 'Count'): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields & { error?: unknown }): void;
}

/** Telemetry that records nothing (library default, tests). */
const silentTelemetry: Telemetry = {
  count: () => {},
  gauge: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
};

/**
 * Replaces a raw identity by its keyed hashes and reduces errors to name + message (no payload can leak
 * through). `key` defaults to the fixed development key (local stack, tests).
 */
function scrub(
  fields: (LogFields & { error?: unknown }) | undefined,
  key: IdentifierKeySource = DEVELOPMENT_IDENTIFIER_KEY,
): Record<string, unknown> {
  if (!fields) return {};
  const { identity, error, ...rest } = fields;
  return {
    ...rest,
    ...(identity ? pseudonyms(identity, key) : {}),
    ...(error instanceof Error ? { error: { name: error.name, message: error.message } } : {}),
  };
}

/** Telemetry on Powertools Logger and Metrics (EMF): identifiers hashed under the deployment's key only. */
function powertoolsTelemetry(logger: Logger, metrics: Metrics, key: IdentifierKeySource): Telemetry {
  return {
    count: (metric, value = 1, jobType) => {
      metrics.addMetric(metric, MetricUnit.Count, value);
      if (jobType === undefined) return;
      // A separate EMF record: the stored metrics share one dimension set, the per-type copy needs its own.
      const perType = metrics.singleMetric();
      perType.addDimension(METRIC_JOB_TYPE_DIMENSION, jobType);
      perType.addMetric(metric, MetricUnit.Count, value);
    },
    gauge: (metric, value, unit = 'Count') =>
      metrics.addMetric(metric, unit === 'Seconds' ? MetricUnit.Seconds : MetricUnit.Count, value),
    info: (message, fields) => logger.info(message, scrub(fields, key)),
    warn: (message, fields) => logger.warn(message, scrub(fields, key)),
    error: (message, fields) => logger.error(message, scrub(fields, key)),
  };
}

const MAX_KEPT_EVENTS = 1_000;

/** Telemetry that keeps counts in memory (local stack, tests, benchmarks); ids hashed under `key` (default: dev key). */
function countingTelemetry(key: IdentifierKeySource = DEVELOPMENT_IDENTIFIER_KEY): Telemetry & {
  counts: Record<string, number>;
  /** The per-job-type copies: `byJobType[jobType][metric]`. */
  byJobType: Record<string, Record<string, number>>;
  events: Array<{ level: string; message: string; fields: Record<string, unknown> }>;
} {
  const counts: Record<string, number> = {};
  const byJobType: Record<string, Record<string, number>> = {};
  const events: Array<{ level: string; message: string; fields: Record<string, unknown> }> = [];
  const record = (level: string) => (message: string, fields?: LogFields & { error?: unknown }) => {
    events.push({ level, message, fields: scrub(fields, key) });
    // Bounded so a long-running local stack or benchmark does not grow without limit.
    if (events.length > MAX_KEPT_EVENTS) events.splice(0, events.length - MAX_KEPT_EVENTS);
  };
  return {
    counts,
    byJobType,
    events,
    count: (metric, value = 1, jobType) => {
      counts[metric] = (counts[metric] ?? 0) + value;
      if (jobType === undefined) return;
      const perType = byJobType[jobType] ?? {};
      perType[metric] = (perType[metric] ?? 0) + value;
      byJobType[jobType] = perType;
    },
    gauge: (metric, value) => {
      counts[metric] = value;
    },
    info: record('info'),
    warn: record('warn'),
    error: record('error'),
  };
}

export { countingTelemetry, type LogFields, powertoolsTelemetry, scrub, silentTelemetry, type Telemetry };
