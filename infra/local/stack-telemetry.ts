import type { JobIdentity } from '../../lib/identity.js';
import { MetricName } from '../../lib/metric-names.js';
import { countingTelemetry, type LogFields, scrub, type Telemetry } from '../../lib/telemetry.js';

/** The error a finished attempt recorded on its row (code and the job's own message), if any. */
type RecordedError = (identity: JobIdentity) => Promise<{ errorCode?: string; errorMessage?: string } | undefined>;

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
 * info and warnings only when `verbose`. With `verbose` and `recordedError`, an attempt that ended other than
 * succeeded is followed by the error its job recorded (the row's code and message: the developer's own job, on
 * their machine; a deployment never logs it). A failed read prints that it failed, never a guess.
 */
function stackTelemetry(log: (line: string) => void, verbose: boolean, recordedError?: RecordedError): StackTelemetry {
  const inner = countingTelemetry();
  let last = '';
  const print = (level: string, message: string, fields?: LogFields & { error?: unknown }) =>
    log(`[worker] ${level} ${message} ${formatFields(scrub(fields))}`.trimEnd());
  const printRecordedError = (fields: LogFields | undefined) => {
    const identity = fields?.identity as JobIdentity | undefined;
    if (!recordedError || !identity || fields?.state === 'succeeded') return;
    const at = formatFields(scrub({ identity }));
    recordedError(identity).then(
      (recorded) => {
        if (recorded?.errorCode || recorded?.errorMessage)
          log(`[worker] info job error ${at} ${recorded.errorCode ?? ''}: ${recorded.errorMessage ?? ''}`);
      },
      (error: unknown) => log(`[worker] info job error ${at}: the row could not be read (${String(error)})`),
    );
  };
  return {
    counts: inner.counts,
    count: inner.count,
    gauge: inner.gauge,
    info: (message, fields) => {
      if (!verbose) return;
      print('info', message, fields);
      if (message === 'attempt ended') printRecordedError(fields);
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
