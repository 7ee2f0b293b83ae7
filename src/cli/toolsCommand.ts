import type { Command } from 'commander';
import { systemClock } from '../clock.js';
import { silentLogger } from '../logger.js';
import { Redactor } from '../task/index.js';
import {
  McpServers,
  type ResolvedToolAnnotations,
  type Tool,
  type ToolAnnotations,
  ToolRegistry,
  mcpSecrets,
  metaTools,
  resolveToolAnnotations,
  toolAnnotations,
} from '../tools/index.js';
import { readSecrets } from './environment.js';
import { mcpServersOption } from './mcpOption.js';
import type { CliIo } from './cliIo.js';
import { reportFailure } from './cliIo.js';
import { ExitCode } from './exitCodes.js';

export interface ToolsCommandOptions {
  readonly json: boolean;
  /** `--mcp <file>`, else `TROUPE_MCP_CONFIG`: the MCP servers whose tools are listed too. */
  readonly mcp?: string;
}

/** One tool as `troupe tools --json` prints it. */
interface ToolRow {
  readonly name: string;
  readonly source: string;
  readonly description: string;
  readonly annotations: ResolvedToolAnnotations;
  /** What an untrusted provider claims, shown beside what is relied on. */
  readonly hints?: ResolvedToolAnnotations;
}

/** The MCP servers' tools, how many servers could not be reached, and the way to close them. */
interface McpListing {
  readonly tools: readonly Tool[];
  readonly unreached: number;
  close(): Promise<void>;
}

const metaToolNames: ReadonlySet<string> = new Set(metaTools.map((tool) => tool.name));

function rowOf(tool: Tool): ToolRow {
  const hints: ToolAnnotations | undefined = tool.hints;
  return {
    name: tool.name,
    source: tool.source ?? (metaToolNames.has(tool.name) ? 'meta' : 'code'),
    description: tool.description,
    annotations: toolAnnotations(tool),
    ...(hints === undefined ? {} : { hints: resolveToolAnnotations(hints) }),
  };
}

/** The annotations in a few letters: r(ead-only), d(estructive), i(dempotent), o(pen world), `-` where false. */
function flags(annotations: ResolvedToolAnnotations): string {
  return [annotations.readOnly ? 'r' : '-', annotations.destructive ? 'd' : '-', annotations.idempotent ? 'i' : '-', annotations.openWorld ? 'o' : '-'].join(
    '',
  );
}

function table(rows: readonly ToolRow[]): string {
  const nameWidth = Math.max(4, ...rows.map((row) => row.name.length));
  const sourceWidth = Math.max(6, ...rows.map((row) => row.source.length));
  const line = (name: string, source: string, marks: string, description: string): string =>
    `${name.padEnd(nameWidth)}  ${source.padEnd(sourceWidth)}  ${marks.padEnd(11)}  ${description}`;
  const header = line('NAME', 'SOURCE', 'ANNOTATIONS', 'DESCRIPTION');
  const body = rows.map((row) => {
    const hinted = row.hints === undefined ? flags(row.annotations) : `${flags(row.annotations)} (${flags(row.hints)})`;
    const description = row.description.split('\n')[0] ?? '';
    return line(row.name, row.source, hinted, description.length > 100 ? `${description.slice(0, 99)}…` : description);
  });
  const legend = "annotations: r read-only, d destructive, i idempotent, o open world, - not; (…) an untrusted server's hints, not relied on";
  return [header, ...body, '', legend, ''].join('\n');
}

/** Prints every tool an agent may be given: the meta-tools and the tools of the configured MCP servers, each with its source and annotations. */
async function listTools(options: ToolsCommandOptions, io: CliIo, extra: () => Promise<McpListing>): Promise<ExitCode> {
  let connected: McpListing | undefined;
  try {
    connected = await extra();
    const rows = [...metaTools, ...connected.tools].map(rowOf);
    io.stdout.write(options.json ? `${JSON.stringify(rows)}\n` : table(rows));
    // Listed all the same, but a server that could not be reached fails the command.
    return connected.unreached === 0 ? ExitCode.ok : ExitCode.internal;
  } catch (error) {
    return reportFailure(io, error, 'cannot list the tools');
  } finally {
    await connected?.close();
  }
}

/** The tools of the configured MCP servers, connected as a runtime would; a server that cannot be reached is reported on stderr. */
async function connectMcp(options: ToolsCommandOptions, io: CliIo): Promise<McpListing> {
  const servers = (await mcpServersOption(options.mcp, io.env)).mcpServers ?? {};
  // Listing, not serving: a server down now is reported, not waited for.
  const once = Object.fromEntries(Object.entries(servers).map(([name, config]) => [name, { ...config, maxRestarts: 0 }]));
  const redactor = new Redactor([...readSecrets(io.env), ...mcpSecrets(servers)]);
  const mcp = await McpServers.connect(once, { registry: new ToolRegistry(), logger: silentLogger, redactor, clock: systemClock });
  const unreached = mcp.status().filter((server) => server.state !== 'up');
  for (const server of unreached) io.stderr.write(`troupe: MCP server ${server.name} could not be reached: ${server.error}\n`);
  return { tools: mcp.tools(), unreached: unreached.length, close: () => mcp.close() };
}

/** Adds `troupe tools` to the program, run on `io`. */
export function registerToolsCommand(program: Command, io: CliIo): void {
  program
    .command('tools')
    .description('list every tool an agent may be given, with its source and annotations')
    .option('--json', 'print the list as one JSON array', false)
    .option('--mcp <file>', 'also connect to the MCP servers of this mcpServers JSON file (default: $TROUPE_MCP_CONFIG) and list their tools')
    .action(async (options: ToolsCommandOptions) => {
      process.exitCode = await listTools(options, io, () => connectMcp(options, io));
    });
}
