import { MetricName } from '../../lib/metric-names.js';
import { countingTelemetry, type LogFields, scrub, type Telemetry } from '../../lib/telemetry.js';

/** Worker telemetry of the local stack: counts for the status line, and events printed when verbose. */
type StackTelemetry = Telemetry & {
  counts: Record<string, number>;
  /** One status line when a count changed since the last call; undefined when nothing happened. */
  statusLine(extra?: Record<string, number>): string | undefined;
};

/** The counts shown in the status line, in order, with their labels. */
const SHOWN: ReadonlyArray<[MetricName, string]> = [
  [MetricName.Claims, 'claims'],
  [MetricName.Succeeded, 'succeeded'],
  [MetricName.Takeovers, 'takeovers'],
  [MetricName.RetryScheduled, 'retries'],
  [MetricName.Unknown, 'unknown'],
  [MetricName.FailedTerminal, 'failed'],
  [MetricName.Quarantined, 'quarantined'],
  [MetricName.StaleFenceRejected, 'stale writes rejected'],
];

/** `key=value` pairs of already-scrubbed fields (identities are hashes by then). */
function formatFields(fields: Record<string, unknown>): string {
  return Object.entries(fields)
    .map(([key, value]) => `${key}=${typeof value === 'object' ? JSON.stringify(value) : String(value)}`)
    .join(' ');
}

/**
 * Telemetry for the local worker: like the Lambda's, identities leave only as hashes. Errors are always printed;
 * info and warnings only when `verbose`.
 */
function stackTelemetry(log: (line: string) => void, verbose: boolean): StackTelemetry {
  const inner = countingTelemetry();
  let last = '';
  const print = (level: string, message: string, fields?: LogFields & { error?: unknown }) =>
    log(`[worker] ${level} ${message} ${formatFields(scrub(fields))}`.trimEnd());
  return {
    counts: inner.counts,
    count: inner.count,
    gauge: inner.gauge,
    info: (message, fields) => {
      if (verbose) print('info', message, fields);
    },
    warn: (message, fields) => {
      if (verbose) print('warn', message, fields);
    },
    error: (message, fields) => print('error', message, fields),
    statusLine: (extra = {}) => {
      const parts = SHOWN.map(([metric, label]) => `${label} ${inner.counts[metric] ?? 0}`);
      for (const [label, value] of Object.entries(extra)) parts.push(`${label} ${value}`);
      const line = parts.join(' · ');
      if (line === last) return undefined;
      last = line;
      return line;
    },
  };
}

export { type StackTelemetry, stackTelemetry };
