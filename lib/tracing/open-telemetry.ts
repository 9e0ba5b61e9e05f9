import type * as OpenTelemetry from '@opentelemetry/api';
import { ConfigurationError } from '../errors.js';
import { hashIdentifier, type IdentifierKeySource, pseudonyms } from '../hashing.js';
import type { JobIdentity } from '../identity.js';
import type { TraceCarrier } from './trace-context.js';
import type { JobTracer, SpanFields, SpanHandle } from './tracer.js';

type Api = typeof OpenTelemetry;

/** The instrumentation scope leasefence's spans are reported under. */
const TRACER_NAME = 'leasefence';

const SPAN_KINDS = {
  producer: (api: Api) => api.SpanKind.PRODUCER,
  consumer: (api: Api) => api.SpanKind.CONSUMER,
} as const;

let loading: Promise<Api> | undefined;

/**
 * The OpenTelemetry API, imported on first use only (a worker or producer with tracing off never loads it). Missing
 * (neither installed nor in a layer) ▶ ConfigurationError: tracing was asked for and cannot be given.
 */
function loadApi(): Promise<Api> {
  loading ??= import('@opentelemetry/api').catch((error: unknown) => {
    loading = undefined;
    throw new ConfigurationError(
      `tracing is on but @opentelemetry/api cannot be loaded (${(error as Error).name}): install it next to your ` +
        'OpenTelemetry SDK, or add the ADOT Lambda layer (README.md, "Tracing")',
    );
  });
  return loading;
}

/** A JobTracer on the OpenTelemetry API: spans go to whatever SDK the user registered (none: nothing is recorded). */
async function loadOpenTelemetryTracer(key: IdentifierKeySource): Promise<JobTracer> {
  return openTelemetryTracer(await loadApi(), key);
}

function openTelemetryTracer(api: Api, key: IdentifierKeySource): JobTracer {
  const tracer = api.trace.getTracer(TRACER_NAME);
  const carrierOf = (span: OpenTelemetry.Span): TraceCarrier | undefined => traceCarrier(api, span.spanContext());
  return {
    span: (name, fields, fn, options = {}) => {
      const parent = options.parent ? remoteContext(api, options.parent) : api.context.active();
      const kind = options.kind ? SPAN_KINDS[options.kind](api) : api.SpanKind.INTERNAL;
      return tracer.startActiveSpan(name, { kind, attributes: attributesOf(fields(), key) }, parent, async (span) => {
        try {
          return await fn();
        } catch (error) {
          span.setStatus({ code: api.SpanStatusCode.ERROR, message: errorName(error) });
          throw error;
        } finally {
          span.end();
        }
      });
    },
    start: (name, fields): SpanHandle => {
      const span = tracer.startSpan(name, { kind: api.SpanKind.PRODUCER, attributes: attributesOf(fields(), key) });
      return {
        carrier: () => carrierOf(span),
        end: (error) => {
          if (error !== undefined) span.setStatus({ code: api.SpanStatusCode.ERROR, message: errorName(error) });
          span.end();
        },
      };
    },
    carrier: () => {
      const span = api.trace.getActiveSpan();
      return span ? carrierOf(span) : undefined;
    },
  };
}

/** The active context with the message's span as the remote parent (other context values, e.g. baggage, kept). */
function remoteContext(api: Api, carrier: TraceCarrier): OpenTelemetry.Context {
  const [, traceId = '', spanId = '', flags = '00'] = carrier.traceparent.split('-');
  return api.trace.setSpanContext(api.context.active(), {
    traceId,
    spanId,
    traceFlags: Number.parseInt(flags, 16) & api.TraceFlags.SAMPLED,
    isRemote: true,
    ...(carrier.tracestate ? { traceState: api.createTraceState(carrier.tracestate) } : {}),
  });
}

/** A span context as W3C traceparent / tracestate (undefined for the invalid context of no span). */
function traceCarrier(api: Api, context: OpenTelemetry.SpanContext): TraceCarrier | undefined {
  if (!api.isSpanContextValid(context)) return undefined;
  const flags = (context.traceFlags & 0xff).toString(16).padStart(2, '0');
  const tracestate = context.traceState?.serialize();
  return { traceparent: `00-${context.traceId}-${context.spanId}-${flags}`, ...(tracestate ? { tracestate } : {}) };
}

/**
 * Span attributes under `leasefence.`: an identity becomes `leasefence.tenant` / `leasefence.operation` and a step name
 * `leasefence.step`, each hashed under the deployment's key (`withheld` while there is none); never a raw id.
 */
function attributesOf(fields: SpanFields, key: IdentifierKeySource): OpenTelemetry.Attributes {
  const attributes: OpenTelemetry.Attributes = {};
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    if (name === 'identity') {
      const hashed = pseudonyms(value as JobIdentity, key);
      attributes['leasefence.tenant'] = hashed.tenant;
      attributes['leasefence.operation'] = hashed.operation;
    } else if (name === 'step') {
      const current = typeof key === 'function' ? key() : key;
      attributes['leasefence.step'] = current === undefined ? 'withheld' : hashIdentifier(String(value), current);
    } else {
      attributes[`leasefence.${name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)}`] = value as
        | string
        | number
        | boolean;
    }
  }
  return attributes;
}

/** An error as its class name only: its message may quote a payload (JSON.parse does), so it never becomes a span's. */
function errorName(error: unknown): string {
  return error instanceof Error ? error.name : 'non-Error thrown';
}

export { loadOpenTelemetryTracer };
