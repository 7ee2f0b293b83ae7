import type { Command } from 'commander';
import { type GraphNode, readStoredGraph } from '../graph/index.js';
import { type GraphQuery, GraphQuerySchema, type GraphView, graphView } from '../runtime/views/graphView.js';
import { societyGraphOwner } from '../runtime/memory/graphHub.js';
import { AgentIdSchema, Redactor } from '../task/index.js';
import { type CliIo, reportFailure } from './cliIo.js';
import { withOrganisation } from './dataDir.js';
import { readSecrets } from './environment.js';
import { ExitCode } from './exitCodes.js';
import { oneLine } from './formatTask.js';
import { integerAtLeast } from './integerArgument.js';
import { dateTime } from './timeFormat.js';

export interface GraphCommandOptions {
  /** `--data-dir`; see `resolveDataDir` for the default. */
  readonly dataDir?: string;
  readonly json: boolean;
  readonly depth?: number;
  readonly limit?: number;
  readonly archived: boolean;
  readonly session?: string;
}

/** The flag of each query field, for a refusal the user can act on. */
const flags: Readonly<Record<string, string>> = { nodeId: '<nodeId>', depth: '--depth', limit: '--limit', sessionId: '--session' };

/** The query the arguments make, or a usage line naming the argument at fault. */
function queryOf(nodeId: string | undefined, options: GraphCommandOptions): { query: GraphQuery } | { refusal: string } {
  const parsed = GraphQuerySchema.safeParse({
    nodeId,
    depth: options.depth,
    limit: options.limit,
    includeArchived: options.archived,
    sessionId: options.session,
  });
  if (parsed.success) return { query: parsed.data };
  const issue = parsed.error.issues[0];
  const field = String(issue?.path[0] ?? '');
  return { refusal: `${flags[field] ?? 'the options'}: ${issue?.message ?? 'invalid'}` };
}

/** A node in one line: its id, kind and state, then its text. */
function nodeLine(node: GraphNode): string {
  const state = node.kind === 'event' ? `${node.status}${node.priority === 0 ? '' : ` p${node.priority}`}` : node.tags.map((tag) => `#${tag}`).join(' ');
  const title = node.kind === 'note' && node.title !== '' ? `${oneLine(node.title, 40)}: ` : '';
  return `${node.id.padEnd(10)} ${node.kind.padEnd(5)}  ${state.padEnd(14)} ${dateTime(node.createdAt)}  ${title}${oneLine(node.content)}`;
}

/** What `troupe graph` prints without `--json`: the graph and its counts, then each node (with its distance), then each edge with its type. */
function formatGraph(view: GraphView, dir: string): string {
  const { counts } = view;
  const about = view.nodeId === null ? 'newest first' : `around ${view.nodeId}, ${view.depth ?? 0} link(s) deep`;
  const session = view.sessionId === null ? '' : ` · session ${view.sessionId}`;
  const lines = [`${view.ownerId}'s graph in ${dir}${session} · ${counts.nodes} nodes · ${counts.edges} edges · ${about}`];
  for (const { node, distance } of view.nodes) lines.push(`  ${distance === null ? '' : `${distance}  `}${nodeLine(node)}`);
  if (view.truncated) lines.push(view.nodeId === null ? `  … ${view.total - view.nodes.length} more (--limit)` : '  … more within the depth (--limit)');
  if (view.edges.length > 0)
    lines.push('edges', ...view.edges.map((edge) => `  ${edge.from} ${edge.type} ${edge.to}${edge.weight === 1 ? '' : ` (${edge.weight})`}`));
  return `${lines.join('\n')}\n`;
}

/** The view as JSON lines: each node (with its distance), then each edge. */
function jsonLines(view: GraphView): string {
  const nodes = view.nodes.map((entry) => `${JSON.stringify(entry)}\n`);
  return [...nodes, ...view.edges.map((edge) => `${JSON.stringify({ edge })}\n`)].join('');
}

/**
 * `troupe graph <agentId> [nodeId]`: an agent's graph memory (or the society's, `society`) read
 * from the data dir without opening it for changes, so it works on a stopped society and beside a
 * running one: its newest nodes, or a node's neighbourhood with the edges' types; redacted.
 */
async function graphCommand(agentId: string, nodeId: string | undefined, options: GraphCommandOptions, io: CliIo): Promise<ExitCode> {
  const checked = AgentIdSchema.safeParse(agentId);
  if (!checked.success) {
    io.stderr.write(`troupe: <agentId> ${checked.error.issues[0]?.message ?? 'is invalid'}, got "${agentId}"\n`);
    return ExitCode.usage;
  }
  const made = queryOf(nodeId, options);
  if ('refusal' in made) {
    io.stderr.write(`troupe: ${made.refusal}\n`);
    return ExitCode.usage;
  }
  return withOrganisation(options.dataDir, io, async (store, dir, logger) => {
    if (agentId !== societyGraphOwner && store.agent(agentId) === undefined) {
      io.stderr.write(`troupe: no agent ${agentId} in ${dir}\n`);
      return ExitCode.usage;
    }
    let view: GraphView;
    try {
      const graph = readStoredGraph(store.environment, agentId, logger);
      view = graphView(graph, made.query, { ownerId: agentId, source: 'store' }, new Redactor(readSecrets(io.env)));
    } catch (error) {
      return reportFailure(io, error);
    }
    io.stdout.write(options.json ? jsonLines(view) : formatGraph(view, dir));
    return ExitCode.ok;
  });
}

/** Adds `troupe graph` to the program, run on `io`. */
export function registerGraphCommand(program: Command, io: CliIo): void {
  program
    .command('graph')
    .description("print an agent's graph memory (or the society's: society) from the data dir (read-only): its newest nodes, or a node's neighbourhood")
    .argument('<agentId>', 'the agent, or society')
    .argument('[nodeId]', 'the node to show with its neighbourhood and the types of its edges')
    .option('--data-dir <dir>', 'the organisation to read (default: $TROUPE_DATA_DIR, else ./.troupe)')
    .option('--depth <n>', 'links to follow from <nodeId> (default 2, at most 10)', integerAtLeast('--depth', 0))
    .option('--limit <n>', 'print at most n nodes (default 100, at most 500)', integerAtLeast('--limit', 1))
    .option('--archived', 'archived events too (hidden by default)', false)
    .option('--session <id>', "only this session's nodes and those of every session")
    .option('--json', 'print each node and each edge as one JSON line', false)
    .action(async (agentId: string, nodeId: string | undefined, options: GraphCommandOptions) => {
      process.exitCode = await graphCommand(agentId, nodeId, options, io);
    });
}
