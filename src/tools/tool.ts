import type { Tracer } from '@opentelemetry/api';
import type { TraceCarrier } from '../traceContext.js';
import { z } from 'zod';
import type { ErrorCode } from '../errors.js';
import { JsonValueSchema, type JsonValue, type Task } from '../task/index.js';
import { requireZod4 } from './requireZod4.js';
import type { SocietyPort } from './societyPort.js';
import { type ToolAnnotations, checkToolAnnotations } from './toolAnnotations.js';

/** A media type as a `Content-Type` header carries it: `type/subtype`, optional parameters, no line breaks. */
export const MediaTypeSchema = z
  .string()
  .max(255)
  .regex(/^[A-Za-z0-9!#$&^_.+-]+\/[A-Za-z0-9!#$&^_.+-]+(\s*;[^\r\n;]+)*$/, 'must be a media type like "text/plain" or "image/png"');

/** Something a tool produced besides its text (a file, an image): text, or bytes. */
export const ArtifactSchema = z
  .object({
    name: z
      .string()
      .min(1)
      .max(256)
      .regex(/^\P{Cc}+$/u, 'must have no control characters'),
    mediaType: MediaTypeSchema,
    content: z.union([z.string(), z.instanceof(Uint8Array)]),
  })
  .strict();

/** What a tool call returns: the text the model reads, JSON metadata for observers and the log, artifacts stored apart. `isError` results are shown to the model as failures. */
export const ToolResultSchema = z
  .object({
    content: z.string(),
    metadata: z.record(z.string(), JsonValueSchema).readonly().optional(),
    artifacts: z.array(ArtifactSchema.readonly()).readonly().optional(),
    isError: z.boolean().optional(),
  })
  .strict();

export type Artifact = Readonly<z.infer<typeof ArtifactSchema>>;
export type ToolResult = Readonly<z.infer<typeof ToolResultSchema>>;

/** What a running tool may use: who called it, for which Task, and the society around it. */
export interface ToolContext {
  readonly agentId: string;
  readonly task: Task;
  /** The id of the model's tool call being run (absent when a tool runs outside a turn): what makes a call recognisable when a resumed turn runs it again. */
  readonly toolCallId?: string;
  /** Aborted when the calling agent is terminated or the tool times out. */
  readonly signal: AbortSignal;
  readonly society: SocietyPort;
  /** The W3C trace context of this call's span when the runtime traces (docs/observability.md): work the tool sends on carries it, to join the trace. */
  readonly trace?: TraceCarrier;
  /** The runtime's tracer, given with `trace`: a tool that calls out (a remote agent) makes its client span with it, under `trace`. */
  readonly tracer?: Tracer;
  /** Agents outside the society `delegate_task` gives work to by role (`createRuntime({ remoteRoles })`); none when absent. */
  readonly remoteRoles?: ReadonlyMap<string, RemoteRole>;
}

/**
 * An agent outside the society that `delegate_task` gives work to by role, as it would a local
 * agent (`createRuntime({ remoteRoles })`): a remote A2A agent (`a2aRemoteRole` from
 * `troupe/nodes`), or any other service that can take a task and answer it.
 */
export interface RemoteRole {
  /** The role `delegate_task` names it by. */
  readonly role: string;
  /** What it does, for the model (the role's description). */
  readonly description: string;
  /** Where it is, for people reading the log (a URL). */
  readonly location: string;
  /**
   * Gives it `text` for the tool call in `context` and resolves with its answer as the tool's
   * result (an error result when it failed). `timeoutMs`: the longest the call may wait, when the
   * model asked for less than the remote's own limit. Aborting `context.signal` takes the work back.
   */
  delegate(text: string, context: ToolContext, options: { readonly timeoutMs?: number }): Promise<ToolResult>;
}

/** What decides whether a call needs a person's approval: the caller and its Task, besides the call's arguments. */
export interface ApprovalContext {
  readonly agentId: string;
  readonly role: string;
  readonly task: Task;
}

/** Whether a call needs a person's approval before it runs: always, never, or as a function of its (checked) arguments says. */
export type NeedsApproval<S extends z.ZodType = z.ZodType> = boolean | ApprovalCheck<S>['check'];

// Declared as a method so a tool with a narrower schema is still a `Tool` (method parameters are bivariant, as `execute`'s are).
interface ApprovalCheck<S extends z.ZodType> {
  check(args: z.infer<S>, context: ApprovalContext): boolean | Promise<boolean>;
}

export interface Tool<S extends z.ZodType = z.ZodType> {
  readonly name: string;
  readonly description: string;
  /** Validates the model's arguments; the JSON Schema the model sees is generated from it. */
  readonly parameters: S;
  /** Longest a call may run before it becomes an error result. */
  readonly timeoutMs?: number;
  /** What the tool does to the world; read them resolved with `toolAnnotations(tool)`. */
  readonly annotations?: ToolAnnotations;
  /** What the tool's provider claims about it when that is not relied on (an untrusted MCP server's hints): shown, never used. */
  readonly hints?: ToolAnnotations;
  /** Whether a call waits for a person's approval before it runs (docs/approvals.md); a role's policy may say otherwise. */
  readonly needsApproval?: NeedsApproval<S>;
  /** Where the tool comes from when not from code, e.g. `mcp:files`; shown by `troupe tools`. */
  readonly source?: string;
  /** The JSON Schema the model sees, when the tool has one of its own (an MCP tool's); else generated from `parameters`. */
  readonly inputSchema?: Readonly<Record<string, unknown>>;
  execute(args: z.infer<S>, context: ToolContext): Promise<ToolResult>;
}

/**
 * Declares a tool, keeping the argument type inferred from its zod schema; a schema that is not
 * zod 4, or annotations with an unknown field or a contradiction, are refused (`invalid_input`).
 */
export function defineTool<S extends z.ZodType>(tool: {
  name: string;
  description: string;
  parameters: S;
  timeoutMs?: number;
  annotations?: ToolAnnotations;
  needsApproval?: NeedsApproval<S>;
  execute(args: z.infer<S>, context: ToolContext): Promise<ToolResult>;
}): Tool<S> {
  requireZod4(tool.parameters, tool.name);
  checkToolAnnotations(tool.annotations, tool.name);
  return tool;
}

/** A successful result whose content is `value` as JSON (how meta-tools answer). */
export function jsonResult(value: Readonly<Record<string, JsonValue>>): ToolResult {
  return { content: JSON.stringify(value), metadata: value };
}

/** An error result: the model sees `{"error": message}` and decides what to do next. */
export function errorResult(message: string, code: ErrorCode = 'tool_error'): ToolResult {
  return { content: JSON.stringify({ error: message, code }), isError: true, metadata: { code } };
}

/** The JSON Schema a model sees for a tool's parameters. */
export function parametersJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return rest;
}
