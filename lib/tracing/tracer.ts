import type { JobIdentity } from '../identity.js';
import type { TraceCarrier } from './trace-context.js';

/**
 * The OpenTelemetry API package: never bundled by the construct (left external, like the AWS SDK), so the copy the
 * user's SDK registered its provider with (theirs, or the ADOT layer's) is the one leasefence's spans go through.
 */
const OPENTELEMETRY_API_PACKAGE = '@opentelemetry/api';

/** The spans leasefence emits (their names, as a trace viewer lists them). */
const SpanName = {
  send: 'leasefence send',
  process: 'leasefence process',
  claim: 'leasefence claim',
  run: 'leasefence run',
  step: 'leasefence step',
  fencedWrite: 'leasefence fenced write',
  complete: 'leasefence complete',
  enqueueSuccessor: 'leasefence enqueue successor',
} as const;
type SpanName = (typeof SpanName)[keyof typeof SpanName];

/**
 * What a span says: an identity (or a step name) is hashed under the deployment's key before it becomes an
 * attribute, as in logs; the rest are counts, codes and registered job types, never payload values.
 */
interface SpanFields {
  identity?: JobIdentity;
  jobType?: string;
  fence?: number;
  attempt?: number;
  step?: string;
  [field: string]: string | number | boolean | JobIdentity | undefined;
}

/** A span started by hand (one per successor's wake-up): its context for a message, then its end. */
interface SpanHandle {
  carrier(): TraceCarrier | undefined;
  end(error?: unknown): void;
}

/** leasefence's tracing seam; the OpenTelemetry one (lib/tracing/open-telemetry.ts) is loaded only when tracing is on. */
interface JobTracer {
  /**
   * Runs `fn` in a span, the child of the active span (or of `parent`, a message's context); `fields` is only called
   * here, so an untraced path never builds it. A rejection ends the span with an error status (its name only) and
   * is rethrown unchanged.
   */
  span<T>(
    name: SpanName,
    fields: () => SpanFields,
    fn: () => Promise<T>,
    options?: { parent?: TraceCarrier | undefined; kind?: 'producer' | 'consumer' },
  ): Promise<T>;
  /** Starts a producer span, a child of the active span, ended by the caller (a message sent later carries it). */
  start(name: SpanName, fields: () => SpanFields): SpanHandle;
  /** The active span's context for a message, or undefined when there is none. */
  carrier(): TraceCarrier | undefined;
}

/** `fn` in a span when a tracer is given; without one, `fn` itself (the cost of tracing off: this check). */
function traced<T>(
  tracer: JobTracer | undefined,
  name: SpanName,
  fields: () => SpanFields,
  fn: () => Promise<T>,
): Promise<T> {
  return tracer === undefined ? fn() : tracer.span(name, fields, fn);
}

export { type JobTracer, OPENTELEMETRY_API_PACKAGE, type SpanFields, type SpanHandle, SpanName, traced };
