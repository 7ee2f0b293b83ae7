import { type Tracer, type TracerProvider, trace } from '@opentelemetry/api';
import { z } from 'zod';
import type { AssistantMessage, ChatMessage, JsonValue, Redactor } from '../../task/index.js';
import { tracerName } from '../../traceNames.js';
import { troupeVersion } from '../../version.js';

/** Longest text a content attribute may hold unless `maxContentLength` says otherwise. */
const defaultMaxContentLength = 16_384;

/** How a runtime traces its agents' work with OpenTelemetry (docs/observability.md#traces). */
export const TracingOptionsSchema = z
  .object({
    /** Where spans go; the global provider (`trace.setGlobalTracerProvider`) when absent, which does nothing until an SDK is registered. */
    tracerProvider: z
      .custom<TracerProvider>(
        (value) => typeof value === 'object' && value !== null && typeof (value as { getTracer?: unknown }).getTracer === 'function',
        'must be an OpenTelemetry TracerProvider (with getTracer)',
      )
      .optional(),
    /** Record prompts, replies, tool arguments and results on the spans, redacted of secrets first. Off by default. */
    content: z.boolean().optional(),
    /** Longest text one content attribute holds (characters); a longer one is cut, ending in `…[truncated]`. */
    maxContentLength: z.number().int().min(256).max(1_048_576).optional(),
  })
  .strict();

export type TracingOptions = z.input<typeof TracingOptionsSchema>;

/** What a process's agents trace with: the tracer, and whether and how content goes on spans. */
export interface Tracing {
  readonly tracer: Tracer;
  /** Takes secrets out of what spans say of failures. */
  readonly redactor: Redactor;
  /** Redacts and bounds content for a span attribute; null when content is not recorded. */
  readonly content: ContentRecorder | null;
}

/** The tracer and content rule `options` ask for (already checked against TracingOptionsSchema). */
export function tracingOf(options: TracingOptions | undefined, redactor: Redactor): Tracing {
  // The global provider is a proxy: an SDK registered after the runtime is made still gets the spans.
  const provider = options?.tracerProvider ?? trace.getTracerProvider();
  const tracer = provider.getTracer(tracerName, troupeVersion());
  return { tracer, redactor, content: options?.content === true ? new ContentRecorder(redactor, options.maxContentLength ?? defaultMaxContentLength) : null };
}

const truncatedMark = '…[truncated]';

/** A message part in the GenAI conventions' shape (`gen_ai.input.messages`). */
type Part =
  | { type: 'text'; content: string }
  | { type: 'tool_call'; id: string; name: string; arguments: string }
  | { type: 'tool_call_response'; id: string; response: string };

function parts(message: ChatMessage): Part[] {
  switch (message.role) {
    case 'system':
    case 'user':
      return [{ type: 'text', content: message.content }];
    case 'assistant':
      return [
        ...(message.content === '' ? [] : [{ type: 'text' as const, content: message.content }]),
        ...message.toolCalls.map((call) => ({ type: 'tool_call' as const, id: call.id, name: call.name, arguments: call.arguments })),
      ];
    case 'tool':
      return [{ type: 'tool_call_response', id: message.toolCallId, response: message.content }];
    default: {
      const never: never = message;
      throw new Error(`unknown message ${JSON.stringify(never)}`);
    }
  }
}

/**
 * Content as span attributes: always through the runtime's redactor (secrets never reach an
 * exporter), and cut to a bound, since an exporter holds every attribute of a span in memory.
 */
export class ContentRecorder {
  constructor(
    readonly redactor: Redactor,
    readonly maxLength: number,
  ) {}

  /** The messages a model call sends, as `gen_ai.input.messages` holds them. */
  messages(messages: readonly ChatMessage[]): string {
    return this.#json(messages.map((message) => ({ role: message.role, parts: parts(message) })));
  }

  /** The model's reply, as `gen_ai.output.messages` holds it. */
  reply(message: AssistantMessage, finishReason: string): string {
    return this.#json([{ role: 'assistant', parts: parts(message), finish_reason: finishReason }]);
  }

  /** A tool call's arguments (JSON text) or result (text). */
  text(text: string): string {
    return this.#bounded(this.redactor.json(text));
  }

  #json(value: unknown): string {
    return this.#bounded(JSON.stringify(this.redactor.value(value as JsonValue)));
  }

  #bounded(text: string): string {
    return text.length <= this.maxLength ? text : text.slice(0, this.maxLength - truncatedMark.length) + truncatedMark;
  }
}
