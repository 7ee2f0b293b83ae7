import { describeError, errorCodeOf } from '../errors.js';
import { formatPath } from '../task/index.js';
import type { ToolPolicy, ToolRegistry } from './registry.js';
import { type ToolCallRequest, type ToolContext, type ToolResult, errorResult } from './tool.js';

export interface RunToolOptions {
  readonly registry: ToolRegistry;
  readonly policy?: ToolPolicy;
  /** Used when a tool declares no timeout of its own. */
  readonly defaultTimeoutMs: number;
}

/**
 * Runs one tool call from a model. Never throws: unknown tools, arguments that are not JSON
 * or fail the schema, a tool that throws and a tool that outlives its timeout all come back
 * as error results the model can read and react to.
 */
export async function runToolCall(call: ToolCallRequest, context: ToolContext, options: RunToolOptions): Promise<ToolResult> {
  const { registry, policy } = options;
  const tool = registry.get(call.name);
  if (tool === undefined || !registry.allows(policy, call.name)) {
    const known = registry.definitions(policy).map((definition) => definition.name).join(', ');
    return errorResult(`unknown tool "${call.name}"; available: ${known}`, 'unknown_tool');
  }
  let raw: unknown;
  try {
    raw = call.arguments.trim() === '' ? {} : JSON.parse(call.arguments);
  } catch (error) {
    return errorResult(`arguments of ${call.name} are not valid JSON (${describeError(error)}): ${call.arguments.slice(0, 200)}`, 'invalid_input');
  }
  const parsed = tool.parameters.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue === undefined ? '' : formatPath(issue.path);
    return errorResult(`invalid arguments for ${call.name}: ${field === '' ? '' : `${field}: `}${issue?.message ?? 'invalid'}`, 'invalid_input');
  }

  const timeoutMs = tool.timeoutMs ?? options.defaultTimeoutMs;
  const controller = new AbortController();
  const onParentAbort = (): void => controller.abort(context.signal.reason);
  context.signal.addEventListener('abort', onParentAbort, { once: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<ToolResult>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new Error(`timed out after ${timeoutMs} ms`));
      resolve(errorResult(`${call.name} timed out after ${timeoutMs} ms`, 'tool_timeout'));
    }, timeoutMs);
  });
  try {
    const execution = tool.execute(parsed.data, { ...context, signal: controller.signal });
    return await Promise.race([execution, timeout]);
  } catch (error) {
    return errorResult(`${call.name} failed: ${describeError(error)}`, errorCodeOf(error));
  } finally {
    clearTimeout(timer);
    context.signal.removeEventListener('abort', onParentAbort);
  }
}
