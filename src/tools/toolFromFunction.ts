import { z } from 'zod';
import { TroupeError } from '../errors.js';
import type { JsonValue } from '../task/index.js';
import { requireZod4 } from './requireZod4.js';
import type { NeedsApproval, Tool, ToolContext, ToolResult } from './tool.js';
import { type ToolAnnotations, checkToolAnnotations } from './toolAnnotations.js';

/** What a plain function may return: text, any JSON value, or a full ToolResult. */
export type ToolFunctionReturn = string | JsonValue | ToolResult;

/** A plain function that can become a tool. */
export type ToolFunction<S extends z.ZodType> = (args: z.infer<S>, context: ToolContext) => ToolFunctionReturn | Promise<ToolFunctionReturn>;

const toolName = /^[a-zA-Z0-9_-]{1,64}$/;
const toolResultKeys: ReadonlySet<string> = new Set(['content', 'metadata', 'artifacts', 'isError']);

/**
 * Makes a tool of a typed function with one call. Its name defaults to the function's name.
 * Returns are wrapped: a string is the content as is, a ToolResult passes through, anything
 * else is sent as JSON (a plain object also becomes the result's metadata). An object whose
 * keys are a subset of ToolResult's with a string `content` counts as a ToolResult.
 *
 * @example
 * async function getWeather({ city }: { city: string }) { return { city, sky: 'clear' }; }
 * const tool = toolFromFunction(getWeather, { description: 'Weather now', parameters: z.object({ city: z.string() }) });
 */
export function toolFromFunction<S extends z.ZodType>(
  fn: ToolFunction<S>,
  options: { name?: string; description: string; parameters: S; timeoutMs?: number; annotations?: ToolAnnotations; needsApproval?: NeedsApproval<S> },
): Tool<S> {
  const name = options.name ?? fn.name;
  if (!toolName.test(name)) {
    throw new TroupeError('invalid_input', `tool name "${name}" must be 1–64 letters, digits, "_" or "-" (name an anonymous function with options.name)`);
  }
  requireZod4(options.parameters, name);
  const annotations = checkToolAnnotations(options.annotations, name);
  return {
    name,
    description: options.description,
    parameters: options.parameters,
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...(annotations === undefined ? {} : { annotations }),
    ...(options.needsApproval === undefined ? {} : { needsApproval: options.needsApproval }),
    execute: async (args, context) => asToolResult(await fn(args, context)),
  };
}

/** Wraps what a tool function returned as the ToolResult the model sees. */
function asToolResult(value: ToolFunctionReturn | undefined): ToolResult {
  if (value === undefined) return { content: '' };
  if (typeof value === 'string') return { content: value };
  if (isToolResult(value)) return value;
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    return { content: JSON.stringify(value), metadata: value };
  }
  return { content: JSON.stringify(value) };
}

function isToolResult(value: ToolFunctionReturn): value is ToolResult {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  return typeof (value as { content?: unknown }).content === 'string' && Object.keys(value).every((key) => toolResultKeys.has(key));
}
