import { type Context, ROOT_CONTEXT, type SpanContext, context, createTraceState, isSpanContextValid, trace } from '@opentelemetry/api';

/**
 * A span's W3C trace context as text (the `traceparent` and `tracestate` headers' values): what a
 * Task carries in its metadata so that the work it asks for, in this process or another, joins
 * the trace of the tool call that sent it.
 */
export interface TraceCarrier {
  readonly traceparent: string;
  readonly tracestate?: string;
}

// Version 00 of the W3C header: lower-case hex, neither id all zeros (isSpanContextValid checks that).
const traceparentForm = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
/** Longest `tracestate` carried on: the W3C limit is 32 entries of at most 256 characters each. */
const maxTracestateLength = 8_192;

/** The carrier of a span context, or undefined when it is not a valid one (no span, or tracing off). */
export function carrierOf(span: SpanContext | undefined): TraceCarrier | undefined {
  if (span === undefined || !isSpanContextValid(span)) return undefined;
  const traceparent = `00-${span.traceId}-${span.spanId}-${(span.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
  const state = span.traceState?.serialize() ?? '';
  return state === '' ? { traceparent } : { traceparent, tracestate: state };
}

/** The carrier of the span active where this is called (with a context manager registered), if any. */
export function activeCarrier(): TraceCarrier | undefined {
  return carrierOf(trace.getSpanContext(context.active()));
}

/**
 * The context whose parent is the span a Task's metadata names (`traceparent`, `tracestate`), or
 * the root context when it names none or a malformed one: a bad header starts a new trace, as
 * the W3C rules say, and never fails the work.
 */
export function contextOfCarrier(metadata: Readonly<Record<string, unknown>>): Context {
  const header = metadata['traceparent'];
  if (typeof header !== 'string') return ROOT_CONTEXT;
  const match = traceparentForm.exec(header);
  if (match === null) return ROOT_CONTEXT;
  const [, traceId = '', spanId = '', flags = '00'] = match;
  const state = metadata['tracestate'];
  const span: SpanContext = {
    traceId,
    spanId,
    traceFlags: parseInt(flags, 16) & 0x01,
    isRemote: true,
    ...(typeof state === 'string' && state !== '' && state.length <= maxTracestateLength ? { traceState: createTraceState(state) } : {}),
  };
  return isSpanContextValid(span) ? trace.setSpanContext(ROOT_CONTEXT, span) : ROOT_CONTEXT;
}

/** The metadata fields of `carrier` (none when undefined), to spread into a Task's metadata. */
export function carrierFields(carrier: TraceCarrier | undefined): { traceparent?: string; tracestate?: string } {
  if (carrier === undefined) return {};
  return carrier.tracestate === undefined ? { traceparent: carrier.traceparent } : { traceparent: carrier.traceparent, tracestate: carrier.tracestate };
}
