import { z } from 'zod';
import { ArtifactLimitsSchema } from '../../org/artifacts/artifactLimits.js';
import { RouterOptionsSchema } from '../../routing/index.js';
import { CompactorConfigSchema } from './compactorConfig.js';

/** The router's options, and whether a model may be asked when no role scores high enough. */
export const RoutingSettingsSchema = RouterOptionsSchema.extend({ askModel: z.boolean().default(true) });

/** Plain settings of a runtime; everything here can come from a config file or environment. */
export const RuntimeConfigSchema = z.object({
  /** How long shutdown lets work in flight finish before cancelling the rest. */
  drainTimeoutMs: z.number().int().nonnegative().default(30_000),
  /** Model calls allowed in one turn. */
  maxSteps: z.number().int().positive().default(25),
  /** Tasks one agent may have waiting; past it new Tasks are rejected with `mailbox_full`. */
  mailboxLimit: z.number().int().positive().default(10_000),
  /** Messages an agent's conversation may hold before each model call warns it to `compress_context`. */
  maxConversationMessages: z.number().int().positive().default(50),
  /** The same tool call (same arguments) allowed this many times in one turn; then refused, then the turn stops. */
  maxRepeatedToolCalls: z.number().int().min(2).default(3),
  /**
   * Tool calls one model reply may make; the calls past it are not run, each answered with a
   * `tool_call_limit` refusal the model reads, so the turn goes on with what it asked for first.
   */
  maxToolCallsPerReply: z.number().int().positive().default(64),
  /**
   * Times one Task may be handed from agent to agent (\`transfer_to_<name>\`); one more handoff is
   * refused (\`handoff_limit\`) and the model reads why, so two agents never hand a Task back and forth forever.
   */
  maxHandoffsPerTask: z.number().int().nonnegative().default(5),
  /** Messages of the session's conversation a handoff passes to its target at most, the newest (after the filter). */
  maxHandoffMessages: z.number().int().positive().default(100),
  /**
   * Sessions whose agent since a handoff is kept in memory, most recently used; past it the least
   * recently used is let go (with a data dir it is read back from the store when its session speaks again).
   */
  sessionAgentsInMemory: z.number().int().positive().default(10_000),
  /** Default timeout of one tool call. */
  toolTimeoutMs: z.number().int().positive().default(60_000),
  /** Longest one interceptor hook may take unless it names its own `timeoutMs`; past it, the hook stops the work it guards. */
  interceptorTimeoutMs: z.number().int().positive().max(600_000).default(10_000),
  /** How long a tool call waits for a person's approval; then it is rejected as expired and the model reads why. */
  approvalExpiryMs: z.number().int().positive().max(604_800_000).default(86_400_000),
  /** Tool calls waiting for approval across the runtime; one more is refused (`approval_limit`) and the model reads why. */
  maxPendingApprovals: z.number().int().positive().default(1_000),
  /** Tool calls of one agent waiting for approval; one more is refused (`approval_limit`). */
  maxPendingApprovalsPerAgent: z.number().int().positive().default(100),
  /** Items one `rt.importMemory` (or `POST /api/agents/:id/memory`, `troupe memory import`) may hold; more are refused before any is stored. */
  maxImportItems: z.number().int().positive().default(100_000),
  /** Longest accepted user message, in characters. */
  maxInputChars: z.number().int().positive().default(100_000),
  /**
   * Messages kept in the user's inbox in memory (oldest dropped first); the org store keeps up to
   * `messageLogLimit`. A window like the others kept in memory (terminated agents, the event replay buffer): a
   * service at 10 Tasks a second fills 1,000 in under two minutes, 10,000 only after seventeen.
   */
  inboxLimit: z.number().int().positive().default(1_000),
  /**
   * With a data dir: the most Tasks the message log keeps across every session, and the most the
   * user's inbox keeps in the store; past it the oldest go, checked every 256 appends (so either
   * may run over by that many). About 0.4–5 KB a Task on disk.
   */
  messageLogLimit: z.number().int().positive().default(1_000_000),
  /**
   * With a data dir: the most terminated agents the store keeps, newest first; past it the oldest
   * are forgotten (their records, conversations and memories), checked every 16 terminations. A
   * service that spawns a worker per request otherwise grows its store by each one, about 3.5 KB.
   */
  terminatedAgentsKept: z.number().int().nonnegative().default(10_000),
  /**
   * With a data dir: how long a record nobody waits for (a log entry, a conversation step) may be
   * held back so it commits with others in one transaction and one fsync. Whatever waits for
   * durability (an accepted Task, the next tool, an answer) commits everything held at once.
   */
  commitDelayMs: z.number().int().nonnegative().max(60_000).default(10),
  /** With a data dir: records held back at most; the next one commits them all at once. */
  maxHeldWrites: z.number().int().positive().default(256),
  /**
   * With a data dir: Tasks the runtime's outputs (the user endpoint, each `rt.events()` stream)
   * may hold together while answers to the user wait for the store's commit, as they must before
   * the user has them. At it, the user's new work is refused at intake with `store_behind` until
   * the store catches up; nothing held is dropped or let out early.
   */
  maxHeldUntilDurable: z.number().int().positive().default(10_000),
  /** Live agents a society may have at once (restored ones count too); a spawn past it is refused with `agent_limit`. */
  maxLiveAgents: z.number().int().positive().default(1_000),
  /** Live children one agent may have at once; a spawn past it is refused with `children_limit`. */
  maxChildrenPerAgent: z.number().int().positive().default(50),
  /** How deep the tree may grow: a top-level agent is at depth 1; a spawn past it is refused with `spawn_depth_limit`. */
  maxSpawnDepth: z.number().int().positive().default(8),
  /**
   * Model calls in flight at once across the whole society; the rest wait in a queue, oldest
   * first. As many as one agent's lanes (`maxLanesPerAgent`), so one busy agent's sessions never
   * wait for each other's calls.
   */
  maxConcurrentModelCalls: z.number().int().positive().default(16),
  /** Model calls that may wait for a slot; one more fails its turn with `model_queue_full`. */
  maxQueuedModelCalls: z.number().int().positive().default(10_000),
  /** Tokens (prompt + completion, as the provider reports them) one Task's turn may use; past it the turn ends with `token_budget`. */
  maxTaskTokens: z.number().int().positive().default(1_000_000),
  /** Time one Task's turn may take, on the runtime's clock; past it the turn ends with `time_budget`. */
  maxTaskMs: z.number().int().positive().default(1_800_000),
  /**
   * Sessions one agent serves at once: each session's turn runs in a lane of its own, so the
   * Tasks of one session run in order while other sessions' run beside them; past this many
   * lanes, Tasks wait in the mailbox.
   */
  maxLanesPerAgent: z.number().int().positive().default(16),
  /**
   * Sessions whose context (conversation) one agent keeps in memory; past it the least recently
   * used idle session's is let go (with a data dir it is read back from the store on its next Task;
   * memory only, that session starts afresh). A session with a lane is never let go.
   */
  sessionsInMemoryPerAgent: z.number().int().positive().default(100),
  /**
   * With a data dir, after a restart: how much of the organisation's unfinished work one slice of
   * the background restore hands back before it yields to the event loop (so HTTP requests and
   * timers are served meanwhile). A slice starts agents, oldest first, until the Tasks they were
   * handed back add up to this (an agent with none counts 1); an agent is never split.
   */
  restoreSliceTasks: z.number().int().positive().default(128),
  /**
   * Terminates a child agent (any agent with a parent) once it and its descendants have had no
   * work for this long, on the runtime's clock, as the runtime (`terminatedBy: "runtime"`): a
   * child whose parent's turn ended without terminating it is otherwise live for good, and counts
   * against `maxChildrenPerAgent`. Off (null) by default: a parent may keep children for later
   * turns; set it above the longest a parent leaves a child idle between two uses.
   */
  reapIdleChildrenAfterMs: z.number().int().positive().max(2_147_483_647).nullable().default(null),
  /** Terminated agents' records kept in memory, newest first (the store keeps them all); older ones leave memory. */
  terminatedAgentsInMemory: z.number().int().nonnegative().default(1_000),
  /**
   * How `delegate_task` picks a role from a description (see docs/routing.md): the router's options,
   * and whether a model that is not scripted may be asked to choose among the closest roles when
   * none is good enough (`askModel`, on by default; a scripted or offline model is never asked).
   */
  routing: RoutingSettingsSchema.prefault({}),
  // The memory compactor's: agents compacted at once, and the bounds of its model calls.
  ...CompactorConfigSchema.shape,
  // The artifact store's: bytes per artifact, artifacts per Task, bytes in all, and the model's preview.
  ...ArtifactLimitsSchema.shape,
});

export type RuntimeConfig = z.infer<typeof RuntimeConfigSchema>;

/**
 * Terminated agents whose records stay in memory: `terminatedAgentsInMemory`, but with a store
 * never more than it keeps (`terminatedAgentsKept`), so memory never shows an agent the store forgot.
 */
export function terminatedInMemory(config: RuntimeConfig, persistent: boolean): number {
  return persistent ? Math.min(config.terminatedAgentsInMemory, config.terminatedAgentsKept) : config.terminatedAgentsInMemory;
}
export type RuntimeConfigInput = z.input<typeof RuntimeConfigSchema>;

export const UserTextSchema = z.string().trim().min(1, 'must not be empty');
