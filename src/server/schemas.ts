import { SkillMatchSummarySchema, SkillSummarySchema } from '../skills/index.js';
import { z } from 'zod';
import { ErrorCodeSchema } from '../errors.js';
import { NodeIdSchema } from '../graph/index.js';
import {
  ImportItemSchema,
  MemoryTierSchema,
  maxGraphPageSize,
  maxGraphViewDepth,
  maxMemoryPageSize,
  maxMemorySearchChars,
  maxMemorySearchResults,
} from '../runtime/index.js';
import { AgentIdSchema, ApprovalIdSchema, ApprovalSchema, TaskIdSchema, TaskSchema, TerminationModeSchema } from '../task/index.js';
import { ArtifactIdSchema, ArtifactRefSchema } from '../org/artifacts/artifactRecords.js';

// The wire formats of the HTTP API: every body, param and query is parsed with these, the
// handlers' types are inferred from them, and the OpenAPI document is generated from them.

/** Text of a user message; its length limit is the runtime's `maxInputChars`, checked there. */
const TextSchema = z
  .string()
  .trim()
  // A pattern rather than a length after trimming, so the OpenAPI document refuses whitespace-only text too.
  .regex(/\S/, 'must not be empty');

/** A session groups a user's Tasks: memory and context never mix two sessions. */
const SessionIdSchema = TaskIdSchema.describe('the session to continue; absent: a new session, whose id is the id of its first Task');

export const SubmitBodySchema = z.object({ text: TextSchema, sessionId: SessionIdSchema.optional() }).strict();
export const SubmitReplySchema = z.object({ taskId: TaskIdSchema, sessionId: TaskIdSchema });

export const SendBodySchema = z
  .object({
    agentId: AgentIdSchema,
    text: TextSchema,
    /** Continue this task tree; absent: the message starts a tree of its own. */
    taskId: TaskIdSchema.optional(),
    /** The session to continue; absent: the session of `taskId`'s tree, or a new one. */
    sessionId: SessionIdSchema.optional(),
  })
  .strict();
export const SendReplySchema = z.object({ messageId: TaskIdSchema, sessionId: TaskIdSchema });

export const TaskIdParamsSchema = z.object({ taskId: TaskIdSchema });
export const AgentIdParamsSchema = z.object({ id: AgentIdSchema });
export const ArtifactIdParamsSchema = z.object({ id: ArtifactIdSchema });

/** The largest number a query accepts: nine digits. */
const largestQueryInteger = 999_999_999;

/**
 * A query number: query strings are text, so digits are accepted and converted. The OpenAPI
 * document shows it as an integer parameter with these bounds (see `openapi.ts`).
 */
const queryInteger = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d{1,9}$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min).max(Math.min(max, largestQueryInteger)));

export const maxPageSize = 1000;

export const MessagesQuerySchema = z
  .object({
    offset: queryInteger(0, largestQueryInteger).default(0),
    limit: queryInteger(1, maxPageSize).default(100),
    /** `user` (default): what reached the user; `all`: every Task of the tree (org store only). */
    scope: z.enum(['user', 'all']).default('user'),
  })
  .strict();

export const MessagesReplySchema = z.object({
  taskId: TaskIdSchema,
  /** Messages in this scope in all, so a client knows when it has paged to the end. */
  total: z.number().int().nonnegative(),
  offset: z.number().int().nonnegative(),
  messages: z.array(TaskSchema),
  /** The artifacts the session's tool calls stored (references; `GET /api/artifacts/{id}` has the content), oldest first. */
  artifacts: z.array(ArtifactRefSchema),
  /** `store` when read from the org store; `memory` from the runtime's bounded inbox. */
  source: z.enum(['store', 'memory']),
});

export const AgentSchema = z.object({
  id: AgentIdSchema,
  roleId: z.string(),
  roleName: z.string(),
  status: z.enum(['active', 'terminated']),
  parentAgentId: AgentIdSchema.nullable(),
  /** The actor's state: `running.idle`, `running.turn.thinking` (a lane waits on the model), `running.turn.acting`, `draining`, `terminated`, … */
  state: z.string(),
  /** Tasks waiting in its mailbox for a lane. */
  queued: z.number().int().nonnegative(),
  /** Sessions it is serving right now: one turn in progress per session. */
  lanes: z.number().int().nonnegative(),
  createdAt: z.number().int(),
  terminatedAt: z.number().int().nullable(),
});
export const AgentsQuerySchema = z
  .object({
    offset: queryInteger(0, largestQueryInteger).default(0),
    limit: queryInteger(1, maxPageSize).default(100),
    /** Only live agents, or only terminated ones (read from the org store when there is one). */
    status: z.enum(['active', 'terminated']).optional(),
  })
  .strict();

/** `DELETE /api/agents/:id`: how the agent's queued work ends (`drain`: finished first; `abort`: cancelled), and why. */
export const TerminateAgentQuerySchema = z
  .object({
    mode: TerminationModeSchema.default('drain'),
    reason: z.string().min(1).max(500).optional(),
  })
  .strict();
/**
 * `POST /api/agents/:id/memory`: facts and conversation turns for the agent's long-term memory
 * (`rt.importMemory`). The route checks each item itself, so one bad item is named with every other
 * (`items[4].speaker`); this is the shape the OpenAPI document shows.
 */
export const MemoryImportBodySchema = z.object({ items: z.array(ImportItemSchema) }).strict();
/** What the route reads of the body before `rt.importMemory` checks the items. */
export const MemoryImportEnvelopeSchema = z.object({ items: z.array(z.unknown()) }).strict();

export const FactParamsSchema = z.object({ id: AgentIdSchema, factId: z.string().regex(/^f(0|[1-9][0-9]{0,15})$/, 'must be a fact id ("f" and a number)') });
export const ForgetFactReplySchema = z.object({ agentId: AgentIdSchema, forgotten: z.string() });

export const TerminateAgentReplySchema = z.object({ agentId: AgentIdSchema, terminated: z.literal(true), mode: TerminationModeSchema });

/** `POST /api/tasks/:taskId/cancel`: why the Task is canceled (`rt.cancel`), as its answer says. */
export const CancelTaskBodySchema = z.object({ reason: z.string().min(1).max(500).optional() }).strict();
export const CancelTaskReplySchema = z.object({ taskId: TaskIdSchema, canceled: z.literal(true) });

export const AgentsReplySchema = z.object({
  /** Agents matching in all, so a client knows when it has paged to the end. */
  total: z.number().int().nonnegative(),
  offset: z.number().int().nonnegative(),
  agents: z.array(AgentSchema),
  /** `store`: every agent ever spawned, from the org store; `memory`: the live agents and the most recent terminated ones. */
  source: z.enum(['store', 'memory']),
});

/** `GET /api/agents/:id/memory`: `rt.memory`'s query as a query string (`q` is its `search`). */
export const AgentMemoryQuerySchema = z
  .object({
    /** The tier to list (absent: counts only, or L4 with `q`). */
    tier: MemoryTierSchema.optional(),
    /** Only this session's entries (L4: its facts and the agent-wide ones). */
    sessionId: TaskIdSchema.optional(),
    offset: queryInteger(0, largestQueryInteger).optional(),
    limit: queryInteger(1, maxMemoryPageSize).optional(),
    /** Search L4 for the facts closest to this text (unpaged: the `k` closest). */
    q: z.string().regex(/\S/, 'must not be blank').max(maxMemorySearchChars).optional(),
    k: queryInteger(1, maxMemorySearchResults).optional(),
  })
  .strict();

/** A yes-or-no query value: query strings are text. */
const queryFlag = z.enum(['true', 'false']).transform((value) => value === 'true');

/** `GET /api/agents/:id/graph/nodes`: `rt.graph`'s listing of the newest nodes. */
export const GraphNodesQuerySchema = z
  .object({
    limit: queryInteger(1, maxGraphPageSize).optional(),
    /** Archived events too (hidden by default). */
    includeArchived: queryFlag.optional(),
    /** Only this session's nodes and those of every session. */
    sessionId: TaskIdSchema.optional(),
  })
  .strict();
/** `GET /api/agents/:id/graph/nodes/:nodeId`: the node's neighbourhood, `depth` links deep (2 by default). */
export const GraphNodeQuerySchema = GraphNodesQuerySchema.extend({ depth: queryInteger(0, maxGraphViewDepth).optional() }).strict();
export const GraphNodeParamsSchema = z.object({ id: AgentIdSchema, nodeId: NodeIdSchema });

export const ApprovalIdParamsSchema = z.object({ id: ApprovalIdSchema });
/** `GET /api/approvals`: the calls waiting for a decision, of one agent when `agentId` is given. */
export const ApprovalsQuerySchema = z.object({ agentId: AgentIdSchema.optional() }).strict();
export const ApprovalsReplySchema = z.object({
  /** Oldest first; arguments redacted, `digest` that of the real arguments (a decision may name it). */
  approvals: z.array(ApprovalSchema),
});

export const RoleSchema = z.object({
  id: z.string(),
  name: z.string(),
  prompt: z.string(),
  createdBy: z.string(),
  createdAt: z.number().int(),
  /** The agents or roles (or `user`) its agents may hand a conversation to (see docs/handoffs.md). */
  handoffs: z.array(z.string()).optional(),
});
export const RolesReplySchema = z.object({ roles: z.array(RoleSchema) });

export const EventsQuerySchema = z
  .object({
    /** Only Tasks of this task tree (its session), or the Task with this id. */
    taskId: TaskIdSchema.optional(),
    /** Only Tasks from or to this agent. */
    agent: AgentIdSchema.optional(),
    /** An action pattern: `*`, `prefix.*` or an exact action (checked by the bus). */
    action: z.string().max(200).default('*'),
    /** The token, for a browser's EventSource, which cannot send an Authorization header. */
    access_token: z.string().optional(),
  })
  .strict();

/**
 * `Last-Event-ID`: the id of the last event a reconnecting client saw, `<run>-<n>` (the server's
 * run, and the event's number in it, from 1). A bare number (an id no server sends any more) is
 * taken as one from another run.
 */
export const LastEventIdSchema = z
  .string()
  .regex(/^(?:[0-9a-z]{1,32}-)?\d{1,15}$/, 'must be an event id (as the server sent it: "<run>-<number>")')
  .transform((id) => {
    const dash = id.lastIndexOf('-');
    return { run: dash === -1 ? null : id.slice(0, dash), seq: Number(id.slice(dash + 1)) };
  });

export const HealthReplySchema = z.object({ status: z.literal('ok') });
/**
 * `/ready`: 200 `running`; 503 while `restoring` (the restored agents are still being started:
 * the API already works), `draining` or anything else. `restore` is the restore's progress, while it runs.
 */
export const ReadyReplySchema = z.object({
  ready: z.boolean(),
  state: z.string(),
  restore: z.object({ agents: z.number().int(), restored: z.number().int(), tasks: z.number().int() }).optional(),
});

export const ErrorBodySchema = z.object({
  error: z.object({
    code: ErrorCodeSchema,
    message: z.string(),
    /** The offending field (`text`, `agentId`, `limit` …), or null when the whole request is at fault. */
    field: z.string().nullable(),
  }),
});

export type SubmitBody = z.infer<typeof SubmitBodySchema>;
export type SendBody = z.infer<typeof SendBodySchema>;
export type MessagesQuery = z.infer<typeof MessagesQuerySchema>;
export type MessagesReply = z.infer<typeof MessagesReplySchema>;
export type AgentMemoryQuery = z.infer<typeof AgentMemoryQuerySchema>;
export type AgentReply = z.infer<typeof AgentSchema>;
export type EventsQuery = z.infer<typeof EventsQuerySchema>;
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

/** Longest text `GET /api/skills?match=` matches: it travels in the URL, which Node bounds at 16 KiB of headers. */
export const maxSkillMatchChars = 8_000;

/** `GET /api/skills`: with `match`, also the skills a Task of that text would activate, and why. */
export const SkillsQuerySchema = z.object({ match: z.string().min(1).max(maxSkillMatchChars).optional() }).strict();

export const SkillsReplySchema = z.object({
  /** Every skill loaded, in the order loaded. */
  skills: z.array(SkillSummarySchema),
  /** Each skill refused when the runtime started: the file, the field and the rule broken. */
  problems: z.array(z.object({ file: z.string(), field: z.string(), rule: z.string() })),
  /** With `match`: the skills whose triggers match it, keyword and pattern matches first, then semantic ones by similarity. */
  matches: z.array(SkillMatchSummarySchema).optional(),
});

/** `GET /api/machines/agent`: a machine's statechart, flat: each state by its dotted path (as an agent's `state` names it). */
export const MachineDefinitionSchema = z.object({
  machine: z.string(),
  /** The state it starts in. */
  initial: z.string().nullable(),
  states: z.array(
    z.object({
      path: z.string(),
      type: z.enum(['atomic', 'compound', 'parallel', 'final', 'history']),
      /** The state it is inside; null at the top. */
      parent: z.string().nullable(),
      /** The child entered first, for a compound state. */
      initial: z.string().nullable(),
    }),
  ),
  /** Each candidate of each event a state handles, in the order they are tried; `source` '' is the machine itself. */
  transitions: z.array(z.object({ source: z.string(), event: z.string(), targets: z.array(z.string()), guard: z.string().nullable() })),
});
export type MachineDefinition = z.infer<typeof MachineDefinitionSchema>;
