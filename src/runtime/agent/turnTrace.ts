import { type Attributes, type Context, type Span, SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import type { TurnEvent } from '../../../machines/agent.machine.js';
import { TroupeError } from '../../errors.js';
import type { ModelCallWatcher } from '../../llm/index.js';
import type { ChatMessage, Task, ToolCall } from '../../task/index.js';
import type { ToolResult } from '../../tools/index.js';
import { type TraceCarrier, carrierOf, contextOfCarrier } from '../../traceContext.js';
import { GenAiOperations, TraceAttributes as A, providerAndModel } from '../../traceNames.js';
import type { Redactor } from '../../task/index.js';
import type { Tracing } from './tracing.js';

/** `error.type`: a troupe error's code, else the error's class name. */
function errorType(error: unknown): string {
  if (error instanceof TroupeError) return error.code;
  return error instanceof Error ? error.name : '_OTHER';
}

/** Marks `span` failed: `error.type`, and the error's message (redacted, as every message troupe lets out) as its status. */
function failed(span: Span, error: unknown, redactor: Redactor): void {
  failedAs(span, errorType(error), error, redactor);
}

function failedAs(span: Span, type: string, error: unknown, redactor: Redactor): void {
  span.setAttribute(A.errorType, type);
  span.setStatus({ code: SpanStatusCode.ERROR, message: redactor.text(error instanceof Error ? error.message : String(error)) });
}

/** One tool call's span (`execute_tool {tool}`). */
export interface ToolTrace {
  /** The call's trace context, for the work the tool sends on (ToolContext.trace). */
  readonly carrier: TraceCarrier | undefined;
  run<T>(fn: () => Promise<T>): Promise<T>;
  ended(result: ToolResult): void;
  failed(error: unknown): void;
}

const untraced: ToolTrace = {
  carrier: undefined,
  run: (fn) => fn(),
  ended: () => undefined,
  failed: () => undefined,
};

/**
 * The spans of one turn, after the GenAI semantic conventions: `invoke_agent {role}` for the turn,
 * its parent the span the Task's metadata names (the tool call that delegated it, in this process
 * or another); under it `chat {model}` per model call and `execute_tool {tool}` per tool call.
 * With tracing off (no SDK registered, no provider given) every handle is a shared no-op.
 */
export class TurnTrace {
  readonly #span: Span;
  readonly #context: Context;
  readonly #tracing: Tracing;
  readonly #recording: boolean;
  #ended = false;

  constructor(tracing: Tracing, agent: { readonly id: string; readonly role: string; readonly model: string | undefined }, task: Task) {
    this.#tracing = tracing;
    const parent = contextOfCarrier(task.metadata);
    const model = agent.model === undefined ? undefined : providerAndModel(agent.model);
    this.#span = tracing.tracer.startSpan(
      `${GenAiOperations.invokeAgent} ${agent.role}`,
      {
        kind: SpanKind.INTERNAL,
        attributes: {
          [A.operationName]: GenAiOperations.invokeAgent,
          ...(model === undefined ? {} : { [A.providerName]: model.provider, [A.requestModel]: model.model }),
          [A.agentId]: agent.id,
          [A.agentName]: agent.role,
          [A.conversationId]: task.sessionId,
          [A.taskId]: task.id,
        },
      },
      parent,
    );
    this.#recording = this.#span.isRecording();
    this.#context = trace.setSpan(parent, this.#span);
  }

  /**
   * What watches a model call about to send `messages` to `modelName`: each attempt that reaches the
   * provider (the retry layer may make several) is a `chat {model}` span, made from the one
   * observation that also feeds the metrics (observedModel). Undefined while nothing traces.
   */
  chat(modelName: string, messages: readonly ChatMessage[]): ModelCallWatcher | undefined {
    if (!this.#recording) return undefined;
    const { provider, model } = providerAndModel(modelName);
    const content = this.#tracing.content;
    const input = content === null ? {} : { [A.inputMessages]: content.messages(messages) };
    const attributes = { [A.operationName]: GenAiOperations.chat, [A.providerName]: provider, [A.requestModel]: model, ...input };
    return {
      attempt: () => {
        const span = this.#child(`${GenAiOperations.chat} ${model}`, SpanKind.CLIENT, attributes);
        const active = trace.setSpan(this.#context, span);
        return {
          wantsReply: content !== null,
          run: (step) => context.with(active, step),
          ended: (measure, outcome) => {
            span.setAttributes({
              ...(measure.finishReason === null ? {} : { [A.finishReasons]: [measure.finishReason] }),
              ...(measure.responseModel === null ? {} : { [A.responseModel]: measure.responseModel }),
              ...(measure.firstChunkSeconds === null ? {} : { [A.timeToFirstChunk]: measure.firstChunkSeconds }),
              ...(measure.usage === null ? {} : { [A.inputTokens]: measure.usage.promptTokens, [A.outputTokens]: measure.usage.completionTokens }),
              ...(content === null || outcome.reply === undefined
                ? {}
                : { [A.outputMessages]: content.reply(outcome.reply.message, outcome.reply.finishReason) }),
            });
            if (measure.errorType !== null) failedAs(span, measure.errorType, outcome.error, this.#tracing.redactor);
            span.end();
          },
        };
      },
    };
  }

  /** The span of a tool call about to run (an MCP server's tool makes the client span of its request under it: src/tools/mcp). */
  tool(call: ToolCall): ToolTrace {
    if (!this.#recording) return untraced;
    const content = this.#tracing.content;
    const span = this.#child(`${GenAiOperations.executeTool} ${call.name}`, SpanKind.INTERNAL, {
      [A.operationName]: GenAiOperations.executeTool,
      [A.toolName]: call.name,
      [A.toolCallId]: call.id,
      [A.toolType]: 'function',
      ...(content === null ? {} : { [A.toolArguments]: content.text(call.arguments) }),
    });
    const active = trace.setSpan(this.#context, span);
    return {
      carrier: carrierOf(span.spanContext()),
      run: (fn) => context.with(active, fn),
      ended: (result) => {
        if (content !== null) span.setAttribute(A.toolResult, content.text(result.content));
        // A result the model reads as an error is the call's failure, named by its code when it has one.
        if (result.isError === true) failed(span, new ToolFailure(result), this.#tracing.redactor);
        span.end();
      },
      failed: (error) => {
        failed(span, error, this.#tracing.redactor);
        span.end();
      },
    };
  }

  /** A call refused before it ran (a repeat, past `maxToolCallsPerReply`): its span, ended at once with the refusal's code as `error.type`. */
  refused(call: ToolCall, refusal: ToolResult): void {
    this.tool(call).ended(refusal);
  }

  /** The turn ended (answered, handed off or failed): its span ends, with the error when it failed. */
  ended(event: TurnEvent): void {
    if (event.type === 'turn.failed') failed(this.#span, event.error, this.#tracing.redactor);
    this.close();
  }

  /** Ends the span if nothing ended it (the machine left the turn: a step limit, a termination). */
  close(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#span.end();
  }

  #child(name: string, kind: SpanKind, attributes: Attributes): Span {
    return this.#tracing.tracer.startSpan(name, { kind, attributes }, this.#context);
  }
}

/** A tool's error result as an error, for `error.type`: its code (`metadata.code`), else `tool_error`; its text is content, so not its message. */
class ToolFailure extends Error {
  override readonly name: string;
  constructor(result: ToolResult) {
    super('the tool returned an error result');
    const code = result.metadata?.['code'];
    this.name = typeof code === 'string' && code !== '' ? code : 'tool_error';
  }
}
