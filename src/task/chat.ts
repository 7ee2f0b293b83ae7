import { z } from 'zod';

// What agents and models say to each other, declared once here, in the lowest layer, so the
// model clients, the tools, the org store and the runtime all use the same types.

/** A tool call as the model wrote it; `arguments` is the model's raw JSON text. */
export const ToolCallSchema = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  arguments: z.string(),
});

export const SystemMessageSchema = z.object({ role: z.literal('system'), content: z.string() });
export const UserMessageSchema = z.object({ role: z.literal('user'), content: z.string() });
export const AssistantMessageSchema = z.object({ role: z.literal('assistant'), content: z.string(), toolCalls: z.array(ToolCallSchema) });
export const ToolMessageSchema = z.object({ role: z.literal('tool'), toolCallId: z.string().min(1), name: z.string(), content: z.string() });

export const ChatMessageSchema = z.discriminatedUnion('role', [SystemMessageSchema, UserMessageSchema, AssistantMessageSchema, ToolMessageSchema]);

/** The graphs an agent's graph tools may act on: its own, or the one its whole society shares. */
export const GraphNameSchema = z.enum(['own', 'society']);
export type GraphName = z.infer<typeof GraphNameSchema>;

/** What a model sees of a tool: the JSON Schema comes from the tool's zod schema. */
export const ToolDefinitionSchema = z.object({
  name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/),
  description: z.string(),
  parameters: z.record(z.string(), z.unknown()),
});

/** A tool's name, or `prefix*` for every tool whose name starts with the prefix. */
const ToolPatternSchema = z
  .string()
  .min(1)
  .max(256)
  .regex(/^[^*]*\*?$/, 'must be a tool name, or a prefix followed by one * at the end');

/** Whether tool `name` is one `patterns` names (exactly, or by a `prefix*`). */
export function namesTool(patterns: readonly string[] | undefined, name: string): boolean {
  return patterns?.some((pattern) => (pattern.endsWith('*') ? name.startsWith(pattern.slice(0, -1)) : pattern === name)) ?? false;
}

/**
 * Which tools a role may use: `allow` (when given), then `deny`; with which scopes its model
 * may `remember` (both by default: a role serving many users keeps `agent` scope, what every one
 * of its sessions sees, for its operator with `rememberScopes: ['session']`); and which graphs its
 * graph tools may act on (`graphs`: its agent's own, `own`, and the society's shared one,
 * `society`; only `own` by default).
 */
export const ToolPolicySchema = z
  .object({
    allow: z.array(z.string()).optional(),
    deny: z.array(z.string()).optional(),
    rememberScopes: z.array(z.enum(['session', 'agent'])).optional(),
    graphs: z.array(GraphNameSchema).optional(),
    /**
     * Which tools' calls wait for a person's approval besides those whose tool asks for it:
     * `require` names tools (`prefix*` for a family, such as an MCP server's); `skip` names tools
     * whose calls run without asking, whatever the tool or the MCP default say. `skip` wins.
     */
    approvals: z
      .object({ require: z.array(ToolPatternSchema).max(1_000).optional(), skip: z.array(ToolPatternSchema).max(1_000).optional() })
      .strict()
      .optional(),
    /** Which skills the role may use: `allow` (when given), then `deny`; every loaded skill by default. */
    skills: z
      .object({ allow: z.array(z.string()).optional(), deny: z.array(z.string()).optional() })
      .strict()
      .optional(),
  })
  .strict();

export type ToolCall = z.infer<typeof ToolCallSchema>;
export type ChatMessage = z.infer<typeof ChatMessageSchema>;
export type AssistantMessage = z.infer<typeof AssistantMessageSchema>;
export type ToolDefinition = z.infer<typeof ToolDefinitionSchema>;
export type ToolPolicy = Readonly<z.infer<typeof ToolPolicySchema>>;
