import type { Subscription } from 'rxjs';
import { z } from 'zod';
import type { EventBus } from '../bus/index.js';
import type { Clock } from '../clock.js';
import { errorCodeOf, describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import { AgentIdSchema, type JsonValue, type Task, createTask, parseOrThrow, replyTo } from '../task/index.js';
import { ToolRegistry } from './registry.js';
import { runToolCall } from './runToolCall.js';
import type { SocietyPort } from './societyPort.js';
import type { ToolAnnotations } from './toolAnnotations.js';
import { type Artifact, type Tool, type ToolResult, ToolResultSchema, defineTool, errorResult } from './tool.js';

/** A tool call sent to the process that serves the tool: a request Task, answered with the tool's result. */
export const toolCallAction = 'tools.call';

const ToolCallParametersSchema = z.object({ tool: z.string().min(1).max(64), arguments: z.json() }).strict();

/** An artifact as it travels in JSON: bytes as base64, said so by `base64`. */
const WireArtifactSchema = z.object({ name: z.string(), mediaType: z.string(), content: z.string(), base64: z.literal(true).optional() }).strict();
/** A tool's result as it travels back: the fields of a ToolResult, its artifacts' bytes as base64. */
const WireResultSchema = ToolResultSchema.extend({ artifacts: z.array(WireArtifactSchema).optional() });

export interface ServeToolsOptions {
  /** What the served tools see as their society (the serving process's). */
  readonly society: SocietyPort;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Calls running at once; one more is answered `failed` with `mailbox_full` at once. */
  readonly maxConcurrentCalls?: number;
  /** Used for a tool that declares no timeout of its own. */
  readonly defaultTimeoutMs?: number;
}

/**
 * Serves `tools` to the society under the id `provider`: a `tools.call` request Task names a
 * tool and its arguments; the tool runs here (arguments checked by its schema, its timeout
 * kept, failures as error results, exactly as for a local call) and the reply carries its
 * result. Agents anywhere call it through `remoteTool`.
 */
export function serveTools(bus: EventBus, provider: string, tools: readonly Tool[], options: ServeToolsOptions): Subscription {
  parseOrThrow(AgentIdSchema, provider, 'provider');
  const registry = new ToolRegistry().register(...tools);
  const { society, clock, logger } = options;
  const maxConcurrent = options.maxConcurrentCalls ?? 64;
  const defaultTimeoutMs = options.defaultTimeoutMs ?? 60_000;
  let running = 0;
  return bus.serve(provider, async (task) => {
    if (task.action !== toolCallAction || task.status !== 'submitted') return undefined;
    const fail = (code: Parameters<typeof errorResult>[1], message: string): Task =>
      replyTo(task, { status: 'failed', error: { code: code ?? 'tool_error', message } }, clock);
    const checked = ToolCallParametersSchema.safeParse(task.parameters);
    if (!checked.success) return fail('invalid_input', `a tools.call needs { tool, arguments }: ${checked.error.issues[0]?.message ?? 'invalid'}`);
    if (running >= maxConcurrent) return fail('mailbox_full', `${provider} is running ${maxConcurrent} tool calls, its limit (maxConcurrentCalls)`);
    running++;
    try {
      const call = { id: task.id, name: checked.data.tool, arguments: JSON.stringify(checked.data.arguments) };
      const controller = new AbortController();
      const result = await runToolCall(call, { agentId: task.from, task, signal: controller.signal, society }, { registry, defaultTimeoutMs, clock });
      return replyTo(task, { status: 'completed', result: toJson(result) }, clock);
    } catch (error) {
      logger.error({ provider, tool: checked.data.tool, error: describeError(error) }, 'a served tool call failed');
      return fail(errorCodeOf(error), describeError(error));
    } finally {
      running--;
    }
  });
}

/**
 * A tool whose calls run in another process, served there by `serveTools` under `provider`: the
 * same name, description and parameters (the model sees them as for a local tool), each call a
 * request Task to the provider from the calling agent, within the call's timeout and abort.
 */
export function remoteTool<S extends z.ZodType>(tool: {
  name: string;
  description: string;
  parameters: S;
  provider: string;
  timeoutMs?: number;
  annotations?: ToolAnnotations;
}): Tool<S> {
  const provider = parseOrThrow(AgentIdSchema, tool.provider, 'provider');
  const timeoutMs = tool.timeoutMs ?? 60_000;
  return defineTool({
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
    timeoutMs,
    ...(tool.annotations === undefined ? {} : { annotations: tool.annotations }),
    execute: async (args, context) => {
      const { society, task: about } = context;
      const request = createTask(
        {
          from: context.agentId,
          to: provider,
          action: toolCallAction,
          parameters: { tool: tool.name, arguments: args as JsonValue },
          parentId: about.id,
          sessionId: about.sessionId,
        },
        society,
      );
      const reply = await society.bus.request(request, { timeoutMs, signal: context.signal });
      if (reply.status !== 'completed')
        return errorResult(`${tool.name} on ${provider}: ${reply.error?.message ?? reply.status}`, reply.error?.code ?? 'tool_error');
      const wire = WireResultSchema.safeParse(reply.result);
      const result = wire.success ? ToolResultSchema.safeParse(fromWire(wire.data)) : wire;
      if (!result.success) return errorResult(`${tool.name} on ${provider} answered something that is not a tool result`, 'tool_error');
      return result.data;
    },
  });
}

/** A ToolResult as JSON: its optional fields left out rather than undefined. */
function toJson(result: ToolResult): JsonValue {
  return {
    content: result.content,
    ...(result.metadata === undefined ? {} : { metadata: { ...result.metadata } }),
    ...(result.artifacts === undefined ? {} : { artifacts: result.artifacts.map(artifactToJson) }),
    ...(result.isError === undefined ? {} : { isError: result.isError }),
  };
}

function artifactToJson({ name, mediaType, content }: Artifact): JsonValue {
  return typeof content === 'string' ? { name, mediaType, content } : { name, mediaType, content: Buffer.from(content).toString('base64'), base64: true };
}

/** A result off the wire with its artifacts' bytes decoded. */
function fromWire(result: z.infer<typeof WireResultSchema>): unknown {
  if (result.artifacts === undefined) return result;
  const artifacts = result.artifacts.map(({ base64, ...artifact }) =>
    base64 === true ? { ...artifact, content: new Uint8Array(Buffer.from(artifact.content, 'base64')) } : artifact,
  );
  return { ...result, artifacts };
}
