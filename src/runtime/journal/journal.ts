import type { RootDatabase } from 'lmdb';
import type { EventBus } from '../../bus/index.js';
import type { AgentRecord, ArtifactTable, Role, Termination } from '../../org/index.js';
import { memoryArtifactTable } from '../../org/artifacts/memoryArtifactTable.js';
import type { Approval, ChatMessage, Task } from '../../task/index.js';

/** Where memories are kept: the organisation's LMDB environment and the directory of the L4 index files; null: in memory only. */
export interface MemoryStore {
  readonly db: RootDatabase;
  readonly indexDir: string;
}

/** Told of every change to a conversation, in order, so a store can keep it as appended steps. */
export interface ConversationSink {
  appended(messages: readonly ChatMessage[]): void;
  /** The whole conversation was rewritten (compressed). */
  replaced(messages: readonly ChatMessage[]): void;
  cleared(): void;
}

/** An organisation as it was written down: what a restart brings back. */
export interface StoredOrganisation {
  readonly roles: readonly Role[];
  readonly agents: readonly AgentRecord[];
  readonly terminations: readonly Termination[];
  /** What the user had received, oldest first. */
  readonly inbox: readonly Task[];
}

/**
 * Where a runtime writes its organisation down: the one seam between the runtime and
 * persistence. Always present: `memoryJournal` keeps nothing, `storeJournal` writes to the LMDB
 * org store. Writes the runtime acknowledges resolve once durable; the rest are queued in order
 * and their failures logged, and `durable()` waits for them.
 */
export interface Journal {
  /** Whether what is written outlives the process: a shutdown then stops agents (their work resumes on restart) instead of ending their work. */
  readonly persistent: boolean;
  /** Where agents' memories are kept beside the organisation (null: in memory only). */
  readonly memoryStore: MemoryStore | null;
  /** Where tools' artifacts are kept beside the organisation: the store's sub-dbs, or maps in memory (a new table each call). */
  artifactTable(): ArtifactTable;
  /**
   * Starts logging what the society says: every Task on `bus`, and what is addressed to the user
   * in the inbox too. A journal that keeps the log also lends it to the bus's transport, which
   * drops work from the wire the log holds already (a replay, even after a restart).
   */
  connect(bus: EventBus): void;
  role(role: Role): Promise<void>;
  /** Records a new agent, then runs `start`: once the record is durable, or at once when nothing is kept. */
  agent<T>(record: AgentRecord, start: () => T): Promise<T>;
  terminated(termination: Termination): Promise<void>;
  /**
   * Puts the user's Task in its tree's log and keeps it waiting for its agent, and runs `send`
   * once both are committed (kept if the process dies), while their fsync goes on: the turn's
   * first model call overlaps it, and whatever the turn does that changes the world waits for
   * `durable()` first. Resolves with what `send` returned once both are durable, so a crash
   * after the caller hears the id still hands the Task back. At once when nothing is kept.
   */
  userInput<T>(task: Task, send: () => T): Promise<T>;
  /** Keeps a Task `agentId` accepted until it is answered, so a restart hands it back. */
  waiting(agentId: string, task: Task): void;
  /** The Task was answered (or refused, or cancelled): nothing to hand back. */
  answered(agentId: string, taskId: string): void;
  /** The skills `agentId` has active in `sessionId`, in the order activated; none forgets them (queued). */
  activeSkills(agentId: string, sessionId: string, skills: readonly string[]): void;
  /** Each session's active skills of `agentId` as stored, least recently changed first; none when nothing is kept. */
  storedActiveSkills(agentId: string): readonly { readonly sessionId: string; readonly skills: readonly string[] }[];
  /** Keeps a tool call's approval as it now stands; resolves once durable (a decision holds through a crash from then on). */
  approval(approval: Approval): Promise<void>;
  /** Forgets an approval whose call is over (queued: it commits with or after the call's result). */
  approvalOver(agentId: string, id: string): void;
  /** Every approval kept before (pending, decided or started); none when nothing is kept. */
  storedApprovals(): readonly Approval[];
  /** Makes `agentId` the agent the user of `sessionId` talks to (queued: whatever waits for durability next commits it). */
  sessionAgent(sessionId: string, agentId: string): void;
  /** The agent the user of `sessionId` talks to since a handoff, as stored; undefined when none (or nothing is kept). */
  storedSessionAgent(sessionId: string): string | undefined;
  /** Where the conversation `owner` (an agent's in one session: `sessionConversationKey`) is kept as appended steps. */
  conversation(owner: string): ConversationSink;
  /** Forgets every conversation of `agentId` (all its sessions'): the agent is gone. */
  clearConversations(agentId: string): void;
  /**
   * Forgets the oldest terminated agents past `terminatedAgentsKept`, at most `max`: runs `erase`
   * with their ids first (what else is kept of them), then forgets their records. Resolves with
   * the ids forgotten; none when nothing is kept.
   */
  forgetRetired(max: number, erase: (agentIds: readonly string[]) => Promise<void>): Promise<readonly string[]>;
  /** Resolves once everything written so far is durable (what a turn waits for before a tool runs or an answer leaves). */
  durable(): Promise<void>;
  /** Resolves once the user's Task `taskId` (see userInput) is durable: at once when it is, or never was one in flight. */
  accepted(taskId: string): Promise<void>;
  /**
   * Resolves once the store has begun committing what was written so far (at once when nothing
   * is kept): a turn waits for it before its next model call, so the step's commit overlaps that
   * call instead of starting behind it.
   */
  committing(): Promise<void>;
  /** The organisation written down before (with the newest `inboxLimit` Tasks of the user's inbox), or null when there is none yet. */
  stored(inboxLimit: number): StoredOrganisation | null;
  /** The Tasks `agentId` had accepted and not answered, oldest first. */
  storedWaiting(agentId: string): readonly Task[];
  /** How many Tasks `agentId` has waiting in the store, without reading them. */
  storedWaitingCount(agentId: string): number;
  /** The stored conversation `owner` (empty when none). */
  storedConversation(owner: string): readonly ChatMessage[];
  /** An agent's stored record (a terminated agent's outlives it in memory); undefined when nothing is kept. */
  agentRecord(agentId: string): AgentRecord | undefined;
  /** Every stored agent record, live and terminated; undefined when nothing is kept. */
  agentRecords(): readonly AgentRecord[] | undefined;
  /** The message log of a task tree, oldest first; undefined when nothing is kept. */
  messageLog(rootTaskId: string, page: { offset?: number; limit?: number }): Task[] | undefined;
  /** Waits for queued writes and closes the store. */
  close(): Promise<void>;
}

const done = Promise.resolve();
/** A sink that keeps nothing: the conversation of a memory-only runtime. */
export const keepNothing: ConversationSink = { appended: () => undefined, replaced: () => undefined, cleared: () => undefined };

/** Runs `next` now, as a promise of its result (a throw becomes a rejection). */
function now<T>(next: () => T): Promise<T> {
  try {
    return Promise.resolve(next());
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * The journal of a memory-only runtime: nothing is written, nothing is restored.
 *
 * @internal
 */
export const memoryJournal: Journal = {
  persistent: false,
  memoryStore: null,
  artifactTable: memoryArtifactTable,
  connect: () => undefined,
  role: () => done,
  agent: (_record, start) => now(start),
  terminated: () => done,
  userInput: (_task, send) => now(send),
  waiting: () => undefined,
  answered: () => undefined,
  activeSkills: () => undefined,
  storedActiveSkills: () => [],
  approval: () => done,
  approvalOver: () => undefined,
  storedApprovals: () => [],
  sessionAgent: () => undefined,
  storedSessionAgent: () => undefined,
  conversation: () => keepNothing,
  clearConversations: () => undefined,
  forgetRetired: () => Promise.resolve([]),
  durable: () => done,
  accepted: () => done,
  committing: () => done,
  stored: () => null,
  storedWaiting: () => [],
  storedWaitingCount: () => 0,
  storedConversation: () => [],
  agentRecord: () => undefined,
  agentRecords: () => undefined,
  messageLog: () => undefined,
  close: () => done,
};
