import { TroupeError, ValidationError } from '../../errors.js';
import {
  type EventNode,
  type GraphMemory,
  type GraphNode,
  GraphRuleError,
  type ReadonlyGraph,
  blockersOf,
  neighbourhood,
  recentNodes,
} from '../../graph/index.js';
import type { JsonValue, ToolPolicy } from '../../task/index.js';
import type { GraphAccess, GraphOperation } from '../../tools/index.js';
import type { MemoryHub } from './memoryHub.js';
import { societyGraphOwner } from './graphHub.js';

// What the graph tools (add_note, create_event, link_nodes, explore, update_event_status) do to
// the graph an agent names: the society's side of the tools' port, beside the hub they go through.

type Json = Record<string, JsonValue>;

/** Characters of a neighbour's content `explore` shows (the node asked about is shown whole): a neighbourhood stays readable in a context. */
const neighbourContentChars = 300;

/** The graph `access` names, once the agent's policy allows it: its own (while it is live) or the society's. */
async function graphFor(hub: MemoryHub, access: GraphAccess, policy: ToolPolicy | undefined): Promise<GraphMemory> {
  const allowed = policy?.graphs ?? ['own'];
  if (!allowed.includes(access.graph)) {
    const named = allowed.length === 0 ? 'none' : allowed.map((graph) => `"${graph}"`).join(', ');
    throw new ValidationError('graph', `your role may not use the "${access.graph}" graph (its policy's graphs allows ${named})`, {
      context: { agentId: access.agentId },
    });
  }
  if (access.graph === 'society') return hub.graphs.of(societyGraphOwner);
  if (hub.opened(access.agentId) === undefined) {
    throw new TroupeError('agent_terminated', `agent "${access.agentId}" is terminated: its graph is closed`, { context: { agentId: access.agentId } });
  }
  return hub.graphs.of(access.agentId);
}

/** The session a new node belongs to: the Task's, unless its scope is `agent`, which the agent's policy may not allow (`rememberScopes`). */
function sessionOf(access: GraphAccess, scope: 'session' | 'agent', policy: ToolPolicy | undefined): string | null {
  const scopes = policy?.rememberScopes;
  if (scopes !== undefined && !scopes.includes(scope)) {
    const named = scopes.length === 0 ? 'none' : scopes.map((allowed) => `"${allowed}"`).join(', ');
    throw new ValidationError('scope', `your role may not keep nodes with scope "${scope}" (its policy's rememberScopes allows ${named})`);
  }
  return scope === 'session' ? access.sessionId : null;
}

/** Node `id` as the agent may see it in its session: a node of another session is as unknown as one never made. */
function seenNode(graph: ReadonlyGraph, id: string, sessionId: string): GraphNode {
  const node = graph.node(id);
  if (node === undefined || (node.sessionId !== null && node.sessionId !== sessionId)) {
    throw new GraphRuleError('unknown_node', `no node with id ${id}${node === undefined ? '' : ' in this session'}`, { nodeId: id });
  }
  return node;
}

/** A node as the model reads it: times as ISO dates, `scope` rather than a session id, its metadata only when it has some. */
function nodeView(node: GraphNode, contentChars = Infinity): Json {
  const content = node.content.length > contentChars ? `${node.content.slice(0, contentChars)}…` : node.content;
  const common: Json = {
    id: node.id,
    kind: node.kind,
    content,
    scope: node.sessionId === null ? 'agent' : 'session',
    createdAt: new Date(node.createdAt).toISOString(),
    ...(Object.keys(node.metadata).length === 0 ? {} : { metadata: node.metadata }),
  };
  if (node.kind === 'note') return { ...common, title: node.title, tags: [...node.tags], source: node.source };
  return { ...common, status: node.status, priority: node.priority, dueAt: node.dueAt === null ? null : new Date(node.dueAt).toISOString() };
}

/** Refuses to start or finish an event an unfinished event blocks, naming each (one of another session by its id only). */
function requireUnblocked(graph: ReadonlyGraph, event: EventNode, status: string, sessionId: string): void {
  if (status !== 'in_progress' && status !== 'done') return;
  const blockers = blockersOf(graph, event.id);
  if (blockers.length === 0) return;
  const named = blockers.map((blocker) =>
    blocker.sessionId !== null && blocker.sessionId !== sessionId
      ? `${blocker.id} (of another session)`
      : `${blocker.id} "${blocker.content.slice(0, 80)}" (${blocker.status})`,
  );
  throw new TroupeError(
    'invalid_input',
    `event ${event.id} cannot become ${status}: it depends on ${blockers.length} unfinished event(s): ${named.join(', ')}; finish them first (update_event_status)`,
    { context: { nodeId: event.id, blockers: blockers.map((blocker) => blocker.id) } },
  );
}

async function setStatus(memory: GraphMemory, id: string, status: EventNode['status'], sessionId: string): Promise<Json> {
  const node = seenNode(memory.graph, id, sessionId);
  if (node.kind !== 'event') throw new ValidationError('id', `node ${id} is a note; only events have a status`);
  if (node.status === status) return { event: nodeView(node), changed: false };
  requireUnblocked(memory.graph, node, status, sessionId);
  return { event: nodeView(await memory.updateNode(id, { status })), changed: true };
}

function explore(graph: ReadonlyGraph, operation: Extract<GraphOperation, { op: 'explore' }>, sessionId: string): Json {
  const { id, depth, maxNodes, includeArchived } = operation;
  if (id === undefined) {
    const recent = recentNodes(graph, { limit: maxNodes, includeArchived, sessionId });
    return { nodes: recent.nodes.map((node) => nodeView(node, neighbourContentChars)), total: recent.total };
  }
  seenNode(graph, id, sessionId);
  const found = neighbourhood(graph, id, { depth, maxNodes, includeArchived, sessionId });
  return {
    nodes: found.nodes.map(({ node, distance }) => ({ ...nodeView(node, distance === 0 ? Infinity : neighbourContentChars), distance })),
    links: found.edges.map(({ from, to, type, weight }) => ({ from, to, type, weight })),
    truncated: found.truncated,
  };
}

/**
 * Does a graph tool's `operation` on the graph `access` names, for an agent held to `policy`;
 * resolves with what the model reads. A refusal (a rule of the graph, a limit, the policy) rejects
 * naming it, and changes nothing.
 */
export async function graphOperation(hub: MemoryHub, access: GraphAccess, operation: GraphOperation, policy: ToolPolicy | undefined): Promise<Json> {
  const memory = await graphFor(hub, access, policy);
  const { sessionId } = access;
  // Who made a node of the graph the society shares.
  const metadata = access.graph === 'society' ? { metadata: { agentId: access.agentId } } : {};
  switch (operation.op) {
    case 'add_note': {
      const { op: _op, scope, ...note } = operation;
      const made = await memory.addNote({
        ...note,
        tags: note.tags === undefined ? undefined : [...note.tags],
        sessionId: sessionOf(access, scope, policy),
        ...metadata,
      });
      return { note: nodeView(made) };
    }
    case 'create_event': {
      const { op: _op, scope, ...event } = operation;
      return { event: nodeView(await memory.addEvent({ ...event, sessionId: sessionOf(access, scope, policy), ...metadata })) };
    }
    case 'link': {
      const { op: _op, ...link } = operation;
      seenNode(memory.graph, link.from, sessionId);
      seenNode(memory.graph, link.to, sessionId);
      const { from, to, type, weight } = await memory.link(link);
      return { link: { from, to, type, weight } };
    }
    case 'explore':
      return explore(memory.graph, operation, sessionId);
    case 'set_status':
      return setStatus(memory, operation.id, operation.status, sessionId);
    default:
      return operation satisfies never;
  }
}
