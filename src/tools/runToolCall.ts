import { onAbort } from '../abort.js';
import type { Clock } from '../clock.js';
import { TroupeError, describeError } from '../errors.js';
import { type ToolCall, type ToolPolicy, formatPath } from '../task/index.js';
import type { ToolRegistry, WhenAbandoned } from './registry.js';
import { type Tool, type ToolContext, type ToolResult, ToolResultSchema, errorResult } from './tool.js';

export interface RunToolOptions {
  readonly registry: ToolRegistry;
  readonly policy?: ToolPolicy;
  /** Used when a tool declares no timeout of its own. */
  readonly defaultTimeoutMs: number;
  /** Times the tool's timeout. The runtime passes its own clock; the system clock when absent. */
  readonly clock: Clock;
}

/** The tool a call names, with its arguments checked against its schema; or why the call cannot run. */
function prepare(call: ToolCall, registry: ToolRegistry, policy: ToolPolicy | undefined): { tool: Tool; args: unknown } | ToolResult {
  const tool = registry.get(call.name);
  if (tool === undefined || !registry.allows(policy, call.name)) {
    const known = registry
      .definitions(policy)
      .map((definition) => definition.name)
      .join(', ');
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
  return { tool, args: parsed.data };
}

/**
 * Runs one tool call from a model. Never throws: unknown tools, arguments that are not JSON
 * or fail the schema, a tool that throws, a tool that outlives its timeout and a call whose
 * caller is aborted all come back as error results the model can read and react to. On a
 * timeout or an abort the tool's own signal is aborted, so it can stop its work.
 */
export function runToolCall(call: ToolCall, context: ToolContext, options: RunToolOptions): Promise<ToolResult> {
  const prepared = prepare(call, options.registry, options.policy);
  if (!('tool' in prepared)) return Promise.resolve(prepared);
  const { tool, args } = prepared;
  const { clock } = options;
  const timeoutMs = tool.timeoutMs ?? options.defaultTimeoutMs;
  // The tool's own signal, made only when the tool reads it: most tools never do, and an
  // AbortController per call is a measurable share of a fast tool step.
  let controller: AbortController | undefined;
  let abortReason: unknown;
  let aborted = false;
  // Who watches for the call being given up without the tool's signal (a recording): told first, as the signal's first listener would be.
  const watchers = new Set<(reason: unknown) => void>();
  const abortTool = (reason: unknown): void => {
    aborted = true;
    abortReason = reason;
    for (const watcher of watchers) watcher(reason);
    watchers.clear();
    controller?.abort(reason);
  };
  const whenAbandoned: WhenAbandoned = (listener) => {
    if (aborted) {
      listener(abortReason);
      return () => undefined;
    }
    const entry = (reason: unknown): void => listener(reason);
    watchers.add(entry);
    return () => void watchers.delete(entry);
  };
  const toolSignal = (): AbortSignal => {
    if (controller === undefined) {
      controller = new AbortController();
      if (aborted) controller.abort(abortReason);
    }
    return controller.signal;
  };
  // One promise, settled by whichever comes first: the tool, its timeout, or the caller's abort.
  return new Promise<ToolResult>((resolve) => {
    let settled = false;
    let stopWatching = (): void => undefined;
    const settle = (result: ToolResult): void => {
      if (settled) return;
      settled = true;
      clock.clearTimeout(timer);
      stopWatching();
      resolve(result);
    };
    const onParentAbort = (): void => {
      abortTool(context.signal.reason);
      settle(errorResult(`${call.name} aborted: ${describeError(context.signal.reason)}`, 'aborted'));
    };
    const timer = clock.setTimeout(() => {
      const timedOut = new TroupeError('tool_timeout', `${call.name} timed out after ${timeoutMs} ms`);
      abortTool(timedOut);
      settle(errorResult(timedOut.message, timedOut.code));
    }, timeoutMs);
    // Not started at all when the caller is already gone.
    if (context.signal.aborted) {
      onParentAbort();
      return;
    }
    stopWatching = onAbort(context.signal, onParentAbort);
    // A coded failure keeps its code; anything else a tool throws is that tool's own failure.
    const failed = (error: unknown): void =>
      settle(errorResult(`${call.name} failed: ${describeError(error)}`, error instanceof TroupeError ? error.code : 'tool_error'));
    try {
      options.registry
        .execute(
          tool,
          args,
          {
            ...context,
            toolCallId: call.id,
            get signal() {
              return toolSignal();
            },
          },
          whenAbandoned,
        )
        .then((value) => settle(checkedResult(call.name, value)), failed);
    } catch (error) {
      failed(error);
    }
  });
}

const plainResultKeys = new Set(['content', 'metadata', 'isError']);

/** A JSON scalar as ToolResultSchema's metadata takes it (a number must be finite). */
function isJsonScalar(value: unknown): boolean {
  return typeof value === 'string' || typeof value === 'boolean' || value === null || (typeof value === 'number' && Number.isFinite(value));
}

/**
 * The common results, which ToolResultSchema would take as they are: text, perhaps with flat
 * metadata (scalars under plain keys) and `isError`, no artifacts. Anything else gets the parse.
 */
function isPlainResult(value: unknown): value is ToolResult {
  if (value === null || typeof value !== 'object') return false;
  // Read as unknown: this is what the tool gave, not yet a ToolResult.
  const { content, metadata, isError } = value as { content?: unknown; metadata?: unknown; isError?: unknown };
  if (typeof content !== 'string' || (isError !== undefined && typeof isError !== 'boolean')) return false;
  for (const key of Object.keys(value)) if (!plainResultKeys.has(key)) return false;
  if (metadata === undefined) return true;
  if (metadata === null || typeof metadata !== 'object' || Object.getPrototypeOf(metadata) !== Object.prototype) return false;
  for (const inner of Object.values(metadata)) if (!isJsonScalar(inner)) return false;
  return true;
}

/**
 * What a tool returned, checked against ToolResultSchema: a malformed result (a bad artifact, metadata
 * that is not JSON) becomes an error result naming the field. The common result (isPlainResult) skips the parse.
 */
function checkedResult(tool: string, value: unknown): ToolResult {
  if (isPlainResult(value)) return value;
  const parsed = ToolResultSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue === undefined ? '' : formatPath(issue.path);
  return errorResult(`${tool} returned an invalid result: ${field === '' ? '' : `${field}: `}${issue?.message ?? 'invalid'}`, 'tool_error');
}
