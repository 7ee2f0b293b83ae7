import { z } from 'zod';
import { GraphNameSchema, visibleText } from '../task/index.js';
import type { GraphAccess, GraphOperation } from './societyPort.js';
import { type ToolContext, type ToolResult, defineTool, jsonResult } from './tool.js';

// The graph memory's tools (seed 002): an agent keeps notes and events in a graph, links them and
// reads a node's neighbourhood. The graph's own limits (`memory.graph`: content, title, tags,
// source, nodes, edges) are the bounds that matter; the bounds here stop a runaway argument early.

/** Links `explore` follows at most: a deeper neighbourhood is rarely read, and its size grows fast. */
const maxExploreDepth = 4;
/** Nodes one `explore` returns at most. */
const maxExploreNodes = 100;
const defaultExploreNodes = 30;

const text = (max: number): z.ZodString => visibleText(z.string().max(max).regex(/\S/, 'must not be blank'));
const nodeId = z.string().min(1).max(128);
const graph = GraphNameSchema.default('own').describe('"own" (default): your graph; "society": the graph your whole society shares, when your role may use it');
const scope = z
  .enum(['session', 'agent'])
  .default('session')
  .describe('"session" (default): seen in this conversation only; "agent": in every conversation using this graph');

/** Runs `operation` on the graph the arguments name, for the calling agent in its Task's session. */
function onGraph(context: ToolContext, name: GraphAccess['graph'], operation: GraphOperation): Promise<ToolResult> {
  const access = { agentId: context.agentId, sessionId: context.task.sessionId, graph: name };
  return context.society.graph(access, operation).then(jsonResult);
}

const addNoteTool = defineTool({
  name: 'add_note',
  description:
    'Keep a note (something learned, a finding, a source) as a node of your graph memory; link it to events or other notes with link_nodes. ' +
    'Returns the note with its id.',
  parameters: z.object({
    content: text(20_000).describe('What the note says'),
    title: z.string().max(1_000).optional().describe('A short title'),
    tags: z.array(z.string().min(1).max(200)).max(64).optional().describe('Words to group it by'),
    source: z.string().min(1).max(4_096).optional().describe('Where it came from: a path, a URL'),
    scope,
    graph,
  }),
  // Each call adds a node: the same call again adds another.
  annotations: { destructive: false, openWorld: false },
  execute: ({ graph: name, ...note }, context) => onGraph(context, name, { op: 'add_note', ...note }),
});

const createEventTool = defineTool({
  name: 'create_event',
  description:
    'Record a piece of work (an event, status "pending") in your graph memory: link it with link_nodes to what it depends on (depends_on), ' +
    'the event it is part of (part_of) and its notes, and move it on with update_event_status. Returns the event with its id.',
  parameters: z.object({
    content: text(20_000).describe('What is to be done'),
    priority: z.number().int().min(-1_000).max(1_000).optional().describe('Higher runs first among events free to run (default 0)'),
    dueAt: z.iso
      .datetime({ offset: true })
      .transform((value) => Date.parse(value))
      .optional()
      .describe('When it is due, as an ISO 8601 date-time, e.g. "2025-03-01T12:00:00Z"'),
    scope,
    graph,
  }),
  annotations: { destructive: false, openWorld: false },
  execute: ({ graph: name, ...event }, context) => onGraph(context, name, { op: 'create_event', ...event }),
});

const linkNodesTool = defineTool({
  name: 'link_nodes',
  description:
    'Link two nodes of your graph memory, from → to. depends_on: event `from` cannot start before event `to` is done (no cycles); ' +
    'part_of: event `from` is a subtask of event `to` (one parent each); references: `from` uses note `to` as context (any nodes; note → note too); ' +
    'produces: an event produced a note, or a note led to an event. A link the rules refuse is refused whole, saying why (a cycle with its path).',
  parameters: z.object({
    from: nodeId.describe('The id of the node the link leaves'),
    to: nodeId.describe('The id of the node it reaches'),
    type: z.enum(['depends_on', 'part_of', 'references', 'produces']),
    weight: z.number().positive().max(1_000).optional().describe('How strongly it ties them (default 1)'),
    graph,
  }),
  // The same link again is refused as existing: it changes nothing more.
  annotations: { destructive: false, idempotent: true, openWorld: false },
  execute: ({ graph: name, ...link }, context) => onGraph(context, name, { op: 'link', ...link }),
});

const exploreTool = defineTool({
  name: 'explore',
  description:
    'Read a node of your graph memory with its neighbourhood: the nodes within `depth` links and the links among them, with their types. ' +
    'Without an id, your newest nodes. Archived events are hidden unless includeArchived is true.',
  parameters: z.object({
    id: nodeId.optional().describe('The node to start from; absent: list your newest nodes'),
    depth: z.number().int().min(0).max(maxExploreDepth).default(2).describe(`Links to follow, 0 to ${maxExploreDepth} (default 2)`),
    maxNodes: z.number().int().min(1).max(maxExploreNodes).default(defaultExploreNodes).describe(`Nodes at most (default ${defaultExploreNodes})`),
    includeArchived: z.boolean().default(false),
    graph,
  }),
  annotations: { readOnly: true, idempotent: true, openWorld: false },
  execute: ({ graph: name, ...query }, context) => onGraph(context, name, { op: 'explore', ...query }),
});

const updateEventStatusTool = defineTool({
  name: 'update_event_status',
  description:
    'Move an event of your graph memory to pending, in_progress, done or archived (hidden from views). ' +
    'An event cannot become in_progress or done while an event it depends on is unfinished: the refusal names them.',
  parameters: z.object({
    id: nodeId.describe('The event'),
    status: z.enum(['pending', 'in_progress', 'done', 'archived']),
    graph,
  }),
  // The status given replaces the one it had; the same status again changes nothing.
  annotations: { destructive: true, idempotent: true, openWorld: false },
  execute: ({ graph: name, ...change }, context) => onGraph(context, name, { op: 'set_status', ...change }),
});

/** The graph memory's tools, in the order a model meets them. */
export const graphTools = [addNoteTool, createEventTool, linkNodesTool, exploreTool, updateEventStatusTool] as const;
