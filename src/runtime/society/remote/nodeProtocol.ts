import { z } from 'zod';
// From the schemas alone: the org store's module would load lmdb with the main entry.
import { RoleRecordSchema, SpawnCallSchema } from '../../../org/schemas.js';
import { AgentIdSchema, ApprovalSchema, HandoffTargetsSchema, JsonValueSchema, TaskRefSchema, TerminationModeSchema } from '../../../task/index.js';

/**
 * The Tasks by which an owner (the process with the user endpoint and the org store) and the
 * nodes of its society share the work of hosting agents. Each is a request on the bus, answered
 * by a reply Task; each is checked against its schema on arrival, so a malformed one is refused
 * with `invalid_input` naming the field.
 */
export const PlacementActions = {
  /** Owner → node: start this agent (its record is already durable at the owner). */
  host: 'nodes.spawn',
  /** Owner → node: stop this agent (its subtree was stopped in order, and recorded, by the owner). */
  stop: 'nodes.terminate',
  /**
   * Owner → every node (to `nodes`), as an owner starts: the agents placed by an earlier owner
   * process stop, quietly, since the owner restores them from its store (their work included).
   */
  reset: 'nodes.reset',
  /** Owner → node: a person's decision on a tool call of an agent hosted there (`RemoteDecisionSchema`), answered with the decided approval. */
  decide: 'nodes.decide',
} as const;

/** Where an owner's word to every node goes: each NodeHost listens on it. */
export const everyNode = 'nodes';

/** Node → owner: what an agent hosted on a node asks of the organisation, which only the owner changes. */
export const OrgActions = {
  spawn: 'org.spawn',
  terminate: 'org.terminate',
  createRole: 'org.role',
  route: 'org.route',
  /** A notice, not a request: a call of an agent hosted on the node began to wait for a person, or was decided (`ApprovalNoticeSchema`). */
  approval: 'org.approval',
} as const;

const reason = z.string().max(2000);

export const HostAgentSchema = z
  .object({
    agent: z
      .object({ id: AgentIdSchema, roleId: z.string().min(1), parentAgentId: AgentIdSchema.nullable(), createdAt: z.number().int().nonnegative() })
      .strict(),
    role: RoleRecordSchema.omit({ v: true }),
    /** The Task the spawn was made for: the agent's `agent.spawned` notice joins its tree. */
    about: TaskRefSchema.nullable(),
    /** Its Tasks wait in a durable mailbox (JetStream), which the node reads instead of the agent's subject. */
    durable: z.boolean().optional(),
    /** Moved here from a lost node: it starts again, without a second `agent.spawned` notice. */
    moved: z.boolean().optional(),
  })
  .strict();
export type HostAgent = z.infer<typeof HostAgentSchema>;

const count = z.number().int().nonnegative();
/** A node's answer to a stop: the agent's model usage, or null when it was gone already. */
export const StoppedReplySchema = z
  .object({ usage: z.object({ calls: count, promptTokens: count, completionTokens: count }).strict() })
  .strict()
  .nullable();

/** `about`: the Task of the turn that asked for the stop (its `agent.terminated` notice joins that session); absent from older owners. */
export const StopHostedSchema = z
  .object({ agentId: AgentIdSchema, by: AgentIdSchema, reason, resumable: z.boolean(), about: TaskRefSchema.nullable().optional() })
  .strict();
export type StopHosted = z.infer<typeof StopHostedSchema>;

export const OrgSpawnSchema = z.object({ role: z.string().min(1).max(200), about: TaskRefSchema.nullable(), call: SpawnCallSchema.optional() }).strict();
export const OrgTerminateSchema = z
  .object({ agentId: AgentIdSchema, reason, mode: TerminationModeSchema, about: TaskRefSchema.nullable().optional() })
  .strict();
/** `delegate_task` by role or description from an agent on a node: the owner's router chooses (see `routeWork`). */
export const OrgRouteSchema = z.object({ request: z.string().min(1).max(10_000), about: TaskRefSchema, call: SpawnCallSchema.optional() }).strict();

/** The owner's answer to `org.route`, checked on the node as every answer from the wire is. */
export const RoutedWorkSchema = z
  .object({
    agentId: AgentIdSchema.nullable(),
    role: z.string().nullable(),
    spawned: z.boolean(),
    reason: z.string(),
    summary: z.string(),
    decision: z.record(z.string(), JsonValueSchema),
  })
  .strict();

export const OrgCreateRoleSchema = z
  .object({
    name: z.string().min(1).max(200),
    prompt: z.string().max(100_000),
    description: z.string().max(1024).optional(),
    handoffs: HandoffTargetsSchema.optional(),
  })
  .strict();

/** `org.approval`: which node the call waits on (where a decision goes), and what happened to its approval. */
export const ApprovalNoticeSchema = z.object({ node: z.string().min(1).max(200), type: z.enum(['waiting', 'decided']), approval: ApprovalSchema }).strict();

/** `nodes.decide`: the approval, and the decision as a person gave it (the node's desk checks it as `rt.decide` does). */
export const RemoteDecisionSchema = z.object({ id: z.string().min(1).max(200), decision: JsonValueSchema }).strict();
