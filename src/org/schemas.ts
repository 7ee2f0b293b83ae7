import { z } from 'zod';
import {
  AgentIdSchema,
  AgentSettingsSchema,
  HandoffTargetsSchema,
  AssistantMessageSchema,
  SystemMessageSchema,
  TaskSchema,
  TerminationModeSchema,
  ToolMessageSchema,
  ToolPolicySchema,
  UserMessageSchema,
} from '../task/index.js';

/**
 * Persisted records of the organisation. Every stored value carries `v`, the version of its
 * own shape, so a record written by another troupe is recognised instead of misread.
 */
const v1 = z.literal(1);
const timestamp = z.number().int().nonnegative();

export const RoleRecordSchema = z
  .object({
    v: v1,
    id: z.string().min(1),
    name: z.string().min(1),
    prompt: z.string(),
    /** What agents of the role do and when to give them work: what the router matches requests against. */
    description: z.string().max(1024).optional(),
    /** The agent (or `user`) that created the role. */
    createdBy: AgentIdSchema,
    createdAt: timestamp,
    tools: ToolPolicySchema.optional(),
    /** The agents or roles (or `user`) its agents may hand a conversation to, each a `transfer_to_<name>` tool. */
    handoffs: HandoffTargetsSchema.optional(),
  })
  .strict();

const AgentStatusSchema = z.enum(['active', 'terminated']);

/**
 * The tool call that spawned an agent: the Task its parent's turn was on and the call's id. Kept
 * with the agent's record, in the same write, so a turn resumed after a crash that runs the same
 * call again gets this agent back instead of spawning a second one.
 */
export const SpawnCallSchema = z.object({ taskId: z.string().min(1).max(200), toolCallId: z.string().min(1).max(200) }).strict();

export const AgentRecordSchema = z
  .object({
    v: v1,
    id: AgentIdSchema,
    roleId: z.string().min(1),
    /** Null for a top-level agent (its parent is the user). */
    parentAgentId: AgentIdSchema.nullable(),
    createdAt: timestamp,
    terminatedAt: timestamp.nullable(),
    status: AgentStatusSchema,
    spawnCall: SpawnCallSchema.optional(),
    /** What it inherited from its parent, with its spawn's overrides, resolved at spawn (see `AgentSettingsSchema`). */
    settings: AgentSettingsSchema.optional(),
  })
  .strict()
  .refine((agent) => (agent.status === 'terminated') === (agent.terminatedAt !== null), {
    message: 'terminatedAt must be set exactly when status is "terminated"',
    path: ['terminatedAt'],
  });

/** The parent → child link, kept beside the agent so a subtree is one range read. */
export const ChildLinkRecordSchema = z.object({ v: v1 }).strict();

export const TerminationRecordSchema = z
  .object({
    v: v1,
    agentId: AgentIdSchema,
    terminatedBy: AgentIdSchema,
    at: timestamp,
    reason: z.string(),
    /** Whether the agent drained its work first; absent in records written before drains existed, which were aborts. */
    mode: TerminationModeSchema.optional(),
  })
  .strict();

/**
 * The `n`th agent terminated: the order retention (`terminatedAgentsKept`) forgets terminated
 * agents in, oldest first.
 */
export const TerminationOrderRecordSchema = z.object({ v: v1, agentId: AgentIdSchema }).strict();

/** One Task of a task tree's message log. TaskSchema is strict, so the Task is wrapped. */
export const MessageRecordSchema = z.object({ v: v1, task: TaskSchema }).strict();

/**
 * The `n`th Task logged, across every session: where it is in `messages` (`[owner, seq]`). The
 * log's order, oldest first, which retention (`messageLogLimit`) drops from.
 */
export const MessageOrderRecordSchema = z.object({ v: v1, owner: z.string().min(1), seq: z.number().int().nonnegative() }).strict();

/**
 * Work the message log holds (a Task asking an agent for a turn), kept under `[agentId, taskId]`:
 * its place in the log's order, so retention forgets it with its Task. What tells a replay of
 * work from new work after a restart (see `givenWork.ts`).
 */
export const GivenWorkRecordSchema = z.object({ v: v1, order: z.number().int().nonnegative() }).strict();

/**
 * A Task an agent accepted and has not yet answered, kept under `[agentId, taskId]` so the
 * answer removes it without a search; `seq` keeps the order they arrived in.
 */
export const MailboxRecordSchema = z
  .object({ v: v1, seq: z.number().int().nonnegative(), task: TaskSchema })
  .strict()
  .refine((record) => record.task.status === 'submitted', { message: 'a waiting Task must be "submitted"', path: ['task', 'status'] });

/** One Task the user has received. */
export const InboxRecordSchema = z.object({ v: v1, task: TaskSchema }).strict();

/**
 * One message of an agent's conversation, stored as the chat message it is plus `v`, one
 * record per message so a step is an append.
 */
export const ConversationRecordSchema = z.discriminatedUnion('role', [
  SystemMessageSchema.extend({ v: v1 }).strict(),
  UserMessageSchema.extend({ v: v1 }).strict(),
  // Records from before 0.1 may lack `toolCalls` on a reply without calls.
  AssistantMessageSchema.extend({ v: v1, toolCalls: AssistantMessageSchema.shape.toolCalls.default([]) }).strict(),
  ToolMessageSchema.extend({ v: v1 }).strict(),
]);

/**
 * The agent a session's user talks to since a handoff, kept under the session's id: the user's
 * next message in that session goes to it, also after a restart.
 */
export const SessionAgentRecordSchema = z.object({ v: v1, sessionId: z.string().min(1), agentId: AgentIdSchema, at: timestamp }).strict();

/**
 * The skills an agent has active in one session, kept under `[agentId, sessionId]`, so a session
 * resumed after a restart has the same skills' instructions in view. Empty lists are not kept.
 */
export const ActiveSkillsRecordSchema = z
  .object({ v: v1, agentId: AgentIdSchema, sessionId: z.string().min(1), skills: z.array(z.string().min(1).max(64)).min(1).max(64), at: timestamp })
  .strict();

export const MetaRecordSchema = z.object({ v: v1, schemaVersion: z.number().int().nonnegative() }).strict();

/** A record moved aside on open because it failed validation; kept byte for byte. */
export const QuarantineRecordSchema = z
  .object({
    v: v1,
    db: z.string(),
    key: z.unknown(),
    raw: z.instanceof(Uint8Array),
    reason: z.string(),
    at: timestamp,
  })
  .strict();

export type RoleRecord = Readonly<z.infer<typeof RoleRecordSchema>>;
/** A role of the society: a name and the prompt its agents are given. */
export type Role = Omit<RoleRecord, 'v'>;
export type StoredAgentRecord = Readonly<z.infer<typeof AgentRecordSchema>>;
/** An agent as the organisation records it: its role, its parent, when it was made and ended. */
export type AgentRecord = Omit<StoredAgentRecord, 'v'>;
/** Which tool call of which Task spawned an agent (see `SpawnCallSchema`). */
export type SpawnCall = Readonly<z.infer<typeof SpawnCallSchema>>;
export type TerminationRecord = Readonly<z.infer<typeof TerminationRecordSchema>>;
/** Who ended an agent, when and why. */
export type Termination = Omit<TerminationRecord, 'v'>;
export type SessionAgentRecord = Readonly<z.infer<typeof SessionAgentRecordSchema>>;
export type ActiveSkillsRecord = Readonly<z.infer<typeof ActiveSkillsRecordSchema>>;
export type QuarantineRecord = Readonly<z.infer<typeof QuarantineRecordSchema>>;
