import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { CallToolResult, Tool as McpToolDefinition } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { JsonValue, Redactor } from '../../task/index.js';
import { type Tool, type ToolContext, type ToolResult, errorResult } from '../tool.js';
import type { ToolAnnotations } from '../toolAnnotations.js';

/** What a troupe tool needs of the server it came from: a way to call it. */
export interface McpToolCaller {
  call(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolResult>;
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
 * server (an untrusted one's are kept as `hints`).
 */
export function mcpTool(server: string, definition: McpToolDefinition, options: { trusted: boolean; callTimeoutMs: number; caller: McpToolCaller }): Tool {
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
    execute: (args: z.infer<typeof parameters>, context: ToolContext) => options.caller.call(definition.name, args, context.signal),
  };
}

const utf8 = new TextEncoder();

/** One content block as text the model can read; binary blocks by what they are, not their bytes. */
function blockText(block: CallToolResult['content'][number]): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
    case 'audio':
      return `[${block.type} ${block.mimeType}, ${Math.floor((block.data.length * 3) / 4)} bytes]`;
    case 'resource':
      return 'text' in block.resource ? block.resource.text : `[resource ${block.resource.uri} ${block.resource.mimeType ?? ''}]`.trim();
    case 'resource_link':
      return `[resource ${block.uri}${block.mimeType === undefined ? '' : ` ${block.mimeType}`}]`;
  }
}

/**
 * A server's answer as the model reads it: its text blocks joined, its structured content as
 * metadata (and as the text when there is no other), an error flagged as one; redacted of the
 * servers' secrets; refused when larger than `maxResultBytes`.
 */
export function toolResultOf(result: CallToolResult, tool: string, options: { maxResultBytes: number; redactor: Redactor }): ToolResult {
  const structured = result.structuredContent as Record<string, JsonValue> | undefined;
  const texts = result.content.map(blockText);
  const content = texts.length === 0 && structured !== undefined ? JSON.stringify(structured) : texts.join('\n');
  const bytes = utf8.encode(content).length;
  if (bytes > options.maxResultBytes) {
    return errorResult(`${tool} answered ${bytes} bytes, more than the ${options.maxResultBytes} a result may have (maxResultBytes)`, 'tool_error');
  }
  const redacted = options.redactor.text(content);
  if (result.isError === true) return { content: redacted, isError: true, metadata: { code: 'tool_error' } };
  if (structured === undefined) return { content: redacted };
  return { content: redacted, metadata: JSON.parse(options.redactor.json(JSON.stringify(structured))) as Record<string, JsonValue> };
}
