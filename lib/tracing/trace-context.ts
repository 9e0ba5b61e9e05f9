/**
 * The W3C trace context a message carries (https://www.w3.org/TR/trace-context/): `traceparent` and, when the
 * sender had one, `tracestate`, as SQS message attributes of those names (never in the body: the envelope schema
 * is the same with tracing on or off). Formatted and parsed here rather than by the SDK's propagator, so a chain is
 * one trace whichever propagator the user's SDK registers.
 */
interface TraceCarrier {
  traceparent: string;
  tracestate?: string;
}

/** The SQS message attribute names (String) that carry the trace context. */
const TRACEPARENT_ATTRIBUTE = 'traceparent';
const TRACESTATE_ATTRIBUTE = 'tracestate';

/** Version 00: trace id (32 hex, not all zero), parent span id (16 hex, not all zero), flags (2 hex). */
const TRACEPARENT = /^00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;
/** The spec's bound on tracestate (32 list members of at most 256 characters would be more; 512 is what is kept). */
const MAX_TRACESTATE_LENGTH = 512;
const TRACESTATE = /^[\x20-\x7e]*$/;

/**
 * The trace context of a received message's String attributes, or undefined when it carries none or a malformed one
 * (a sender's bad trace context starts a new trace; it never refuses the message).
 */
function parseTraceCarrier(read: (name: string) => string | undefined): TraceCarrier | undefined {
  const traceparent = read(TRACEPARENT_ATTRIBUTE);
  if (traceparent === undefined || !TRACEPARENT.test(traceparent)) return undefined;
  const tracestate = read(TRACESTATE_ATTRIBUTE);
  const keepState =
    tracestate !== undefined && tracestate.length <= MAX_TRACESTATE_LENGTH && TRACESTATE.test(tracestate);
  return keepState ? { traceparent, tracestate } : { traceparent };
}

/** The trace context as SendMessage / SendMessageBatch MessageAttributes (none without a carrier). */
function traceMessageAttributes(
  carrier: TraceCarrier | undefined,
): Record<string, { DataType: 'String'; StringValue: string }> | undefined {
  if (carrier === undefined) return undefined;
  return {
    [TRACEPARENT_ATTRIBUTE]: { DataType: 'String', StringValue: carrier.traceparent },
    ...(carrier.tracestate ? { [TRACESTATE_ATTRIBUTE]: { DataType: 'String', StringValue: carrier.tracestate } } : {}),
  };
}

export { parseTraceCarrier, TRACEPARENT_ATTRIBUTE, TRACESTATE_ATTRIBUTE, type TraceCarrier, traceMessageAttributes };
