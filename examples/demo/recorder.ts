import { countingTelemetry, type LogFields, type Telemetry } from '../../lib/telemetry.js';

/** What one demo worker reported, raw (the demo narrates its own operations; nothing leaves the process). */
interface RecordedEvent {
  message: string;
  fields: LogFields;
}

/**
 * Telemetry that keeps a demo worker's events unscrubbed, plus its metric counts, for the timeline; each count
 * also goes to `shared` (the stack's counters) when given. Events stay in this process.
 */
function recordingTelemetry(
  shared?: Pick<Telemetry, 'count'>,
): Telemetry & { events: RecordedEvent[]; counts: Record<string, number> } {
  const counting = countingTelemetry();
  const events: RecordedEvent[] = [];
  const keep = (message: string, fields?: LogFields) => {
    events.push({ message, fields: { ...(fields ?? {}) } });
  };
  const count: Telemetry['count'] = (metric, value) => {
    counting.count(metric, value);
    shared?.count(metric, value);
  };
  return { ...counting, count, events, info: keep, warn: keep, error: keep };
}

export { type RecordedEvent, recordingTelemetry };
