import type { Clock } from '../clock.js';
import { describeError, errorCodeOf } from '../errors.js';
import { formatPath } from '../task/index.js';
import type { ToolPolicy, ToolRegistry } from './registry.js';
import { type ToolCallRequest, type ToolContext, type ToolResult, errorResult } from './tool.js';

export interface RunToolOptions {
  readonly registry: ToolRegistry;
  readonly policy?: ToolPolicy;
  /** Used when a tool declares no timeout of its own. */
  readonly defaultTimeoutMs: number;
  /** Times the tool's timeout. The runtime passes its own clock; the system clock when absent. */
  readonly clock: Clock;
}

/**
 * Runs one tool call from a model. Never throws: unknown tools, arguments that are not JSON
 * or fail the schema, a tool that throws, a tool that outlives its timeout and a call whose
 * caller is aborted all come back as error results the model can read and react to. On a
 * timeout or an abort the tool's own signal is aborted, so it can stop its work.
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

  const { clock } = options;
  const timeoutMs = tool.timeoutMs ?? options.defaultTimeoutMs;
  // The tool's own signal, made only when the tool reads it: most tools never do, and an
  // AbortController per call is a measurable share of a fast tool step.
  let controller: AbortController | undefined;
  let abortReason: unknown;
  let aborted = false;
  const abortTool = (reason: unknown): void => {
    aborted = true;
    abortReason = reason;
    controller?.abort(reason);
  };
  const toolSignal = (): AbortSignal => {
    if (controller === undefined) {
      controller = new AbortController();
      if (aborted) controller.abort(abortReason);
    }
    return controller.signal;
  };
  // Settles with an error result when the timeout fires or the caller aborts, whichever is first.
  let interrupt!: (result: ToolResult) => void;
  const interrupted = new Promise<ToolResult>((resolve) => {
    interrupt = resolve;
  });
  const onParentAbort = (): void => {
    abortTool(context.signal.reason);
    interrupt(errorResult(`${call.name} aborted: ${describeError(context.signal.reason)}`, 'aborted'));
  };
  if (context.signal.aborted) onParentAbort();
  else context.signal.addEventListener('abort', onParentAbort, { once: true });
  const timer = clock.setTimeout(() => {
    abortTool(new Error(`timed out after ${timeoutMs} ms`));
    interrupt(errorResult(`${call.name} timed out after ${timeoutMs} ms`, 'tool_timeout'));
  }, timeoutMs);
  try {
    // Not started at all when the caller is already gone.
    if (context.signal.aborted) return await interrupted;
    const execution = tool.execute(parsed.data, {
      ...context,
      get signal() {
        return toolSignal();
      },
    });
    return await Promise.race([execution, interrupted]);
  } catch (error) {
    return errorResult(`${call.name} failed: ${describeError(error)}`, errorCodeOf(error));
  } finally {
    clock.clearTimeout(timer);
    context.signal.removeEventListener('abort', onParentAbort);
  }
}
