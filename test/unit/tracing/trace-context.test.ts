import { describe, expect, it } from 'vitest';
import { parseTraceCarrier, traceMessageAttributes } from '../../../lib/tracing/trace-context.js';

const VALID = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
const attributes = (values: Record<string, string>) => (name: string) => values[name];

describe('the W3C trace context a message carries', () => {
  it('reads traceparent and tracestate from the message attributes', () => {
    expect(parseTraceCarrier(attributes({ traceparent: VALID, tracestate: 'vendor=abc,other=1' }))).toEqual({
      traceparent: VALID,
      tracestate: 'vendor=abc,other=1',
    });
    expect(parseTraceCarrier(attributes({ traceparent: VALID }))).toEqual({ traceparent: VALID });
  });

  it('ignores a malformed traceparent: no carrier, a new trace (never a refused message)', () => {
    for (const bad of [
      '',
      'garbage',
      '00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01', // upper case
      '00-00000000000000000000000000000000-00f067aa0ba902b7-01', // all-zero trace id
      '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01', // all-zero span id
      '01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra',
      `${VALID}\n`,
    ]) {
      expect(parseTraceCarrier(attributes({ traceparent: bad, tracestate: 'a=b' }))).toBeUndefined();
    }
    expect(parseTraceCarrier(attributes({}))).toBeUndefined();
  });

  it('drops a tracestate that is oversized or not printable ASCII, keeping the traceparent', () => {
    for (const state of ['x'.repeat(513), 'a=b\nc=d', 'a=é']) {
      expect(parseTraceCarrier(attributes({ traceparent: VALID, tracestate: state }))).toEqual({ traceparent: VALID });
    }
  });

  it('writes them as String message attributes, tracestate only when there is one', () => {
    expect(traceMessageAttributes(undefined)).toBeUndefined();
    expect(traceMessageAttributes({ traceparent: VALID })).toEqual({
      traceparent: { DataType: 'String', StringValue: VALID },
    });
    expect(traceMessageAttributes({ traceparent: VALID, tracestate: 'a=b' })).toEqual({
      traceparent: { DataType: 'String', StringValue: VALID },
      tracestate: { DataType: 'String', StringValue: 'a=b' },
    });
  });
});
