import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { TroupeError, ValidationError, describeError } from '../../errors.js';
import { formatPath } from '../../task/index.js';

/** The bounds every MCP server is held to; each may be set per server. */
export const McpLimitsSchema = z.object({
  /** Longest the connection and the `initialize` handshake may take. */
  connectTimeoutMs: z.number().int().positive().max(600_000).default(10_000),
  /** Longest one `tools/list` (all its pages) may take. */
  listTimeoutMs: z.number().int().positive().max(600_000).default(10_000),
  /** Longest one tool call may take; then it is cancelled and the model reads a timeout. */
  callTimeoutMs: z.number().int().positive().max(3_600_000).default(60_000),
  /** Most bytes of text a tool result may give the model; a larger one is an error result. */
  maxResultBytes: z
    .number()
    .int()
    .positive()
    .max(64 * 1024 * 1024)
    .default(256 * 1024),
  /** Most tools taken from the server; the rest are left out, with a warning. */
  maxTools: z.number().int().positive().max(10_000).default(256),
  /** Restarts (stdio) or reconnections (HTTP) in a row after which a dead server is left down. */
  maxRestarts: z.number().int().nonnegative().max(1_000).default(5),
  /** Wait before the first restart; doubled each time, up to `maxBackoffMs`. */
  backoffMs: z.number().int().positive().max(600_000).default(500),
  maxBackoffMs: z.number().int().positive().max(3_600_000).default(30_000),
  /** Its tools' annotations are relied on; an untrusted server's are shown as hints only. */
  trusted: z.boolean().default(false),
  /**
   * Its tools' calls wait for a person's approval, as MCP asks (all but a trusted server's
   * read-only tools); false lets them run unasked. A role's policy may still require it.
   */
  requireApproval: z.boolean().default(true),
});

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name');

const StdioServerSchema = McpLimitsSchema.extend({
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  /** Given to the server's process besides a few safe variables (PATH, HOME …); every value is treated as a secret. */
  env: z.record(envName, z.string()).default({}),
  cwd: z.string().min(1).optional(),
}).strict();

const HttpServerSchema = McpLimitsSchema.extend({
  url: z.url({ protocol: /^https?$/ }),
  /** Sent with every request; every value is treated as a secret. */
  headers: z.record(z.string().min(1), z.string()).default({}),
}).strict();

type StdioServerConfig = z.output<typeof StdioServerSchema>;
type HttpServerConfig = z.output<typeof HttpServerSchema>;

/** One MCP server: a command run over stdio (it has `command`), or a Streamable HTTP endpoint (it has `url`). */
const McpServerConfigSchema = z.unknown().transform((value, ctx): StdioServerConfig | HttpServerConfig => {
  const object = typeof value === 'object' && value !== null && !Array.isArray(value) ? value : undefined;
  const schema = object === undefined ? undefined : 'command' in object ? StdioServerSchema : 'url' in object ? HttpServerSchema : undefined;
  if (schema === undefined) {
    ctx.addIssue({ code: 'custom', message: 'needs "command" (a stdio server) or "url" (a Streamable HTTP server)' });
    return z.NEVER;
  }
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
  return z.NEVER;
});

/** A server's name, the prefix of its tools' names (`<server>__<tool>`). */
const serverName = z
  .string()
  .regex(/^[a-zA-Z0-9-]+(_[a-zA-Z0-9-]+)*$/, 'must be letters, digits, "-" and single "_" (it prefixes tool names as "<server>__<tool>")')
  .max(32);

/** The servers by name, as code gives them to `createRuntime({ mcpServers })`. */
const McpServersSchema = z.record(serverName, McpServerConfigSchema);

/** The file other MCP clients keep: `{ "mcpServers": { "<name>": { command, args, env } | { url, headers } } }`. */
const McpServersFileSchema = z.object({ mcpServers: McpServersSchema });

/** One server as code gives it (limits left out take their defaults). */
export type McpServerConfigInput = z.input<typeof StdioServerSchema> | z.input<typeof HttpServerSchema>;
export type McpServerConfig = StdioServerConfig | HttpServerConfig;

/** Which transport a server uses. */
export function isStdioServer(config: McpServerConfig): config is StdioServerConfig {
  return 'command' in config;
}

/** Checks servers given in code; a bad one is refused with a ValidationError naming `mcpServers.<name>.<field>`. */
export function parseMcpServers(input: unknown): Record<string, McpServerConfig> {
  const parsed = McpServersSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw validationError(parsed.error, 'mcpServers');
}

function validationError(error: z.ZodError, prefix: string): ValidationError {
  const issue = error.issues[0];
  const path = issue === undefined ? '' : formatPath(issue.path);
  return new ValidationError(path === '' ? prefix : `${prefix}.${path}`, issue?.message ?? 'invalid', { cause: error });
}

/** Reads an `mcpServers` JSON file; a missing, unreadable or bad file is refused naming the file and the field. */
export async function readMcpConfigFile(file: string): Promise<Record<string, McpServerConfig>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new TroupeError('invalid_input', `MCP config ${file}: cannot read it (${describeError(error)})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new TroupeError('invalid_input', `MCP config ${file}: not JSON (${describeError(error)})`);
  }
  const parsed = McpServersFileSchema.safeParse(json);
  if (parsed.success) return parsed.data.mcpServers;
  throw new TroupeError('invalid_input', `MCP config ${file}: ${validationError(parsed.error, '').message.replace(/^\./, '')}`);
}

/** The values of a server's config that must never be written anywhere: its env's and its headers'. */
export function mcpSecrets(servers: Readonly<Record<string, McpServerConfig>>): string[] {
  return Object.values(servers).flatMap((config) => Object.values(isStdioServer(config) ? config.env : config.headers));
}
