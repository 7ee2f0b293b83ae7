import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { CallToolResult, Tool as McpToolDefinition } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { JsonValue, Redactor } from '../../task/index.js';
import type { TraceCarrier } from '../../traceContext.js';
import { type Artifact, MediaTypeSchema, type Tool, type ToolContext, type ToolResult, errorResult } from '../tool.js';
import type { ToolAnnotations } from '../toolAnnotations.js';

/** What a troupe tool needs of the server it came from: a way to call it. */
export interface McpToolCaller {
  /** `trace`: the tool call's trace context, the parent of the MCP request's span when the runtime traces. */
  call(tool: string, args: Record<string, unknown>, signal: AbortSignal, trace: TraceCarrier | undefined): Promise<ToolResult>;
}

const validators = new AjvJsonSchemaValidator();
const toolNameChars = /[^a-zA-Z0-9_-]/g;

/** The name an MCP tool takes in troupe: `<server>__<tool>`, with characters a model refuses replaced by `_`, at most 64. */
function troupeToolName(server: string, tool: string): string {
  return `${server}__${tool.replace(toolNameChars, '_')}`.slice(0, 64);
}

/** MCP's hints under troupe's names; only those the server gave. */
function annotationsOf(definition: McpToolDefinition): ToolAnnotations {
  const hints = definition.annotations ?? {};
  const readOnly = hints.readOnlyHint;
  return {
    ...(readOnly === undefined ? {} : { readOnly }),
    // A read-only tool cannot be destructive: a server claiming both is read as read-only.
    ...(hints.destructiveHint === undefined || readOnly === true ? {} : { destructive: hints.destructiveHint }),
    ...(hints.idempotentHint === undefined ? {} : { idempotent: hints.idempotentHint }),
    ...(hints.openWorldHint === undefined ? {} : { openWorld: hints.openWorldHint }),
  };
}

/**
 * The model's arguments checked against the server's own JSON Schema before the call: a zod
 * schema whose refinement runs it, so a bad call is refused like any tool's, naming the field.
 */
function argumentsSchema(inputSchema: Record<string, unknown>): z.ZodType<Record<string, unknown>> {
  const validate = validators.getValidator<Record<string, unknown>>(inputSchema);
  return z.record(z.string(), z.unknown()).superRefine((args, ctx) => {
    const checked = validate(args);
    if (!checked.valid) ctx.addIssue({ code: 'custom', message: checked.errorMessage });
  });
}

/**
 * An MCP server's tool as an ordinary troupe tool: its JSON Schema is what the model sees and
 * what the arguments are checked against; its annotations are relied on only for a trusted
 * server (an untrusted one's are kept as `hints`). Its calls wait for a person's approval unless
 * the server's config says `requireApproval: false`.
 */
export function mcpTool(
  server: string,
  definition: McpToolDefinition,
  options: { trusted: boolean; requireApproval: boolean; callTimeoutMs: number; caller: McpToolCaller },
): Tool {
  // The model is shown the schema itself; which draft it follows is the validator's business.
  const { $schema: _draft, ...inputSchema } = definition.inputSchema as Record<string, unknown>;
  const annotations = annotationsOf(definition);
  const parameters = argumentsSchema(definition.inputSchema);
  return {
    name: troupeToolName(server, definition.name),
    description: definition.description ?? definition.title ?? definition.annotations?.title ?? definition.name,
    parameters,
    inputSchema,
    timeoutMs: options.callTimeoutMs,
    source: `mcp:${server}`,
    ...(options.trusted ? { annotations } : Object.keys(annotations).length === 0 ? {} : { hints: annotations }),
    // Unset, MCP's rule applies (every tool but a trusted server's read-only ones waits for a person).
    ...(options.requireApproval ? {} : { needsApproval: false }),
    execute: (args: z.infer<typeof parameters>, context: ToolContext) => options.caller.call(definition.name, args, context.signal, context.trace),
  };
}

const utf8 = new TextEncoder();

type Block = CallToolResult['content'][number];

/** Extensions for the media types servers send most, so a stored artifact's name says what it is. */
const extensions: Readonly<Record<string, string>> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/svg+xml': 'svg',
  'audio/wav': 'wav',
  'audio/mpeg': 'mp3',
  'audio/ogg': 'ogg',
  'application/pdf': 'pdf',
};

/** A binary block (an image, audio, a resource's blob) as an artifact: its bytes stored apart, never given to the model. */
function binaryArtifact(block: Block, tool: string, index: number): Artifact | undefined {
  const binary =
    block.type === 'image' || block.type === 'audio'
      ? { data: block.data, mimeType: block.mimeType, uri: undefined }
      : block.type === 'resource' && 'blob' in block.resource
        ? { data: block.resource.blob, mimeType: block.resource.mimeType ?? 'application/octet-stream', uri: block.resource.uri }
        : undefined;
  if (binary === undefined) return undefined;
  // A peer's media type is not trusted to be one: a malformed one is stored as plain bytes.
  const mediaType = MediaTypeSchema.safeParse(binary.mimeType).success ? binary.mimeType : 'application/octet-stream';
  const fromUri = binary.uri
    ?.split(/[/?#]/)
    .filter((part) => part !== '')
    .at(-1);
  const name =
    fromUri !== undefined && /^[\w.-]{1,128}$/.test(fromUri) ? fromUri : `${tool}-${index + 1}.${extensions[mediaType.split(';')[0] ?? ''] ?? 'bin'}`;
  return { name, mediaType, content: new Uint8Array(Buffer.from(binary.data, 'base64')) };
}

/** One content block as text the model can read; a binary block by what it is and the artifact it became, not its bytes. */
function blockText(block: Block, artifact: Artifact | undefined): string {
  if (artifact !== undefined)
    return `[${block.type === 'resource' ? 'resource' : block.type} ${artifact.mediaType}, ${artifact.content.length} bytes, stored as "${artifact.name}"]`;
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
    case 'audio':
      return `[${block.type} ${block.mimeType}]`;
    case 'resource':
      return 'text' in block.resource ? block.resource.text : `[resource ${block.resource.uri} ${block.resource.mimeType ?? ''}]`.trim();
    case 'resource_link':
      return `[resource ${block.uri}${block.mimeType === undefined ? '' : ` ${block.mimeType}`}]`;
  }
}

/**
 * A server's answer as the model reads it: its text blocks joined, its structured content as
 * metadata (and as the text when there is no other), its images, audio and binary resources as
 * artifacts (stored apart, the model reads a line naming each), an error flagged as one; redacted
 * of the servers' secrets; refused when its text is larger than `maxResultBytes`.
 */
export function toolResultOf(
  result: CallToolResult,
  tool: string,
  options: {
    maxResultBytes: number;
    redactor: Redactor;
    /** The tool's own name, for the names of the artifacts its binary blocks become. */ toolName?: string;
  },
): ToolResult {
  const structured = result.structuredContent as Record<string, JsonValue> | undefined;
  const artifacts = result.content.map((block, index) => binaryArtifact(block, (options.toolName ?? 'mcp').replace(/[^\w.-]/g, '_').slice(0, 64), index));
  const stored = artifacts.filter((artifact) => artifact !== undefined);
  const texts = result.content.map((block, index) => blockText(block, artifacts[index]));
  const content = texts.length === 0 && structured !== undefined ? JSON.stringify(structured) : texts.join('\n');
  const bytes = utf8.encode(content).length;
  if (bytes > options.maxResultBytes) {
    return errorResult(`${tool} answered ${bytes} bytes, more than the ${options.maxResultBytes} a result may have (maxResultBytes)`, 'tool_error');
  }
  const redacted = options.redactor.text(content);
  if (result.isError === true) return { content: redacted, isError: true, metadata: { code: 'tool_error' } };
  const kept = stored.length === 0 ? {} : { artifacts: stored };
  if (structured === undefined) return { content: redacted, ...kept };
  return { content: redacted, metadata: JSON.parse(options.redactor.json(JSON.stringify(structured))) as Record<string, JsonValue>, ...kept };
}
