import type { Database, RootDatabase } from 'lmdb';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { AgentSettings, Approval, ChatMessage, Task, TerminationMode } from '../task/index.js';
import type { SubDbName } from './keys.js';
import type { Migrations } from './migrations.js';
import type { QuarantineEntry } from './quarantine.js';
import type { StoredAgentRecord, SpawnCall, RoleRecord, TerminationRecord } from './schemas.js';

/**
 * Test seam: called after a write is staged and before anything of it is issued, with the
 * attempt number (1 or 2). A throw there simulates a failed write; nothing of it is written.
 */
export type WriteFault = (label: string, attempt: number) => void;

/** The open sub-databases, by name. */
export type SubDbs = Readonly<Record<SubDbName, Database<unknown>>>;

export interface NewRole {
  readonly id: string;
  readonly name: string;
  readonly prompt: string;
  readonly createdBy: string;
  /** Defaults to the store's clock. */
  readonly createdAt?: number;
  readonly tools?: { readonly allow?: readonly string[]; readonly deny?: readonly string[] };
  readonly handoffs?: readonly string[];
}

export interface NewAgent {
  readonly id: string;
  readonly roleId: string;
  readonly parentAgentId: string | null;
  readonly createdAt?: number;
  /** The parent's tool call that spawned it, when a turn did (see `SpawnCallSchema`). */
  readonly spawnCall?: SpawnCall;
  readonly settings?: AgentSettings;
}

/** What may change on a live agent; the parent link moves with `parentAgentId`. */
export interface AgentPatch {
  readonly roleId?: string;
  readonly parentAgentId?: string | null;
}

export interface NewTermination {
  readonly agentId: string;
  readonly terminatedBy: string;
  readonly reason: string;
  readonly at?: number;
  /** `abort` when absent. */
  readonly mode?: TerminationMode;
}

/** A terminated agent past retention, with its place in the order agents were terminated in. */
export interface RetiredAgent {
  readonly order: number;
  readonly agentId: string;
}

/** What `openOrgStore` does with a damaged store: set it aside and start empty, or refuse to open it. */
export type OnDamage = 'reset' | 'refuse';

/** A window on a sequence: skip `offset` entries, return at most `limit`. */
export interface Page {
  readonly offset?: number;
  readonly limit?: number;
}

/** Told, for each write made durable, the seconds from its ops' issue to their transaction's commit and fsync. */
export type CommitListener = (seconds: number) => void;

export interface OrgStoreOptions {
  /** Directory of the LMDB environment; created when missing. */
  readonly dir: string;
  readonly logger?: Logger;
  readonly clock?: Clock;
  /** Added to (and overriding) troupe's own migrations; see `Migrations`. */
  readonly migrations?: Migrations;
  /** The schema version to bring the store to; troupe's current one unless a test says otherwise. */
  readonly schemaVersion?: number;
  /** Test seam: see `WriteFault`. */
  readonly writeFault?: WriteFault;
  /** Told how long each write took to become durable (seconds, commit and fsync): the store's commit latency. */
  readonly onCommit?: CommitListener;
  /**
   * The most Tasks the message log keeps across every session, and the most the user's inbox
   * keeps; past it the oldest go (checked every `pruneEvery` appends, so either may run over by
   * that many). Default 1,000,000.
   */
  readonly messageLogLimit?: number;
  /**
   * The most terminated agents the store keeps, newest first; past it `terminatedPastRetention`
   * names the oldest, for whoever keeps more of them (their memories) to erase them before
   * `forgetTerminated` forgets them. Default 10,000.
   */
  readonly terminatedAgentsKept?: number;
  /**
   * A damaged store (a truncated or garbled data file, or one lmdb fails to read through):
   * `'reset'` (the default) moves its files into a `damaged-<time>` folder in `dir`, logs an
   * error naming the folder and opens empty; `'refuse'` rejects with `store_damaged` and
   * leaves the files as they are.
   */
  readonly onDamage?: OnDamage;
}

/**
 * The organisation's durable state. Every write resolves only once it is committed and
 * flushed to disk, so what a call acknowledged survives a kill -9 and is readable as soon as
 * the call returns. Writes land in the order they were requested, committed and fsynced off
 * the main thread: a crash loses only a suffix of whole writes (never a write whose
 * predecessor is lost). Writes requested in one synchronous section share one lmdb
 * transaction (one commit, one fsync): to pay one commit per step, request a step's writes
 * together. The store must be the only writer of its directory (it keeps the sequence numbers
 * of writes in flight in memory). Refusals (unknown agent, duplicate id, bad input) reject with their own
 * TroupeError code; a write that fails twice rejects with TroupeError('internal') and the
 * store stays usable.
 */
export interface OrgStore {
  /**
   * The LMDB environment the organisation lives in: agents' memories keep their `memory-*`
   * sub-dbs in it (they write them themselves; the organisation's sub-dbs are this store's alone).
   *
   * @internal
   */
  readonly environment: RootDatabase;
  createRole(role: NewRole): Promise<RoleRecord>;
  /** The agent record and its parent link, in one transaction. */
  createAgent(agent: NewAgent): Promise<StoredAgentRecord>;
  updateAgent(agentId: string, patch: AgentPatch): Promise<StoredAgentRecord>;
  /**
   * Marks the agent terminated and records who ended it and why, in one transaction; with
   * `removeConversations`, its conversations go in that transaction too (as `clearConversations`
   * would remove them, without a commit of its own first).
   */
  markTerminated(termination: NewTermination, options?: { removeConversations?: boolean }): Promise<TerminationRecord>;
  /**
   * Appends one Task to a task tree's log; resolves with its sequence number. `onCommitted` is
   * called once the write is committed, before its fsync (see DurableWriter.run).
   */
  appendMessage(rootTaskId: string, task: Task, onCommitted?: () => void): Promise<number>;
  messages(rootTaskId: string, page?: Page): Task[];
  /** Appends steps (one transaction for all); resolves with the conversation's new length. */
  appendConversation(agentId: string, steps: readonly ChatMessage[]): Promise<number>;
  conversation(agentId: string): ChatMessage[];
  clearConversation(agentId: string): Promise<void>;
  /**
   * Removes every conversation of `agentId`: each session's (kept under `agentId/sessionId`, see
   * `sessionConversationKey`) and one kept under the bare id by an older troupe. Resolves with how
   * many conversations went.
   */
  clearConversations(agentId: string): Promise<number>;
  /** The skills `agentId` has active in `sessionId`, in the order activated (see `ActiveSkillsRecordSchema`); none removes the record. */
  setActiveSkills(agentId: string, sessionId: string, skills: readonly string[]): Promise<void>;
  /** Each session's active skills of `agentId`, least recently changed first. */
  activeSkills(agentId: string): { sessionId: string; skills: string[] }[];
  /** Keeps a tool call's approval as it now stands (see `ApprovalSchema`), replacing what was kept of it. */
  setApproval(approval: Approval): Promise<void>;
  /** Forgets an approval once its call is over; one not kept is no error. */
  removeApproval(agentId: string, id: string): Promise<void>;
  /** Every approval kept (pending, decided or started), checked when the store opened. */
  approvals(): Approval[];
  /** Makes `agentId` the agent the user of `sessionId` talks to (see `SessionAgentRecordSchema`). */
  setSessionAgent(sessionId: string, agentId: string): Promise<void>;
  /** The agent the user of `sessionId` talks to since a handoff; undefined when none was recorded. */
  sessionAgent(sessionId: string): string | undefined;
  /**
   * Keeps a Task `agentId` accepted until `removeWaiting` says it was answered, so a restart
   * can hand it back. Adding a Task already waiting keeps the first record (and its place).
   * `onCommitted` as for appendMessage.
   */
  addWaiting(agentId: string, task: Task, onCommitted?: () => void): Promise<void>;
  /** Forgets a waiting Task; a Task not waiting is no error. */
  removeWaiting(agentId: string, taskId: string): Promise<void>;
  /** The Tasks waiting for `agentId`, in the order they arrived. */
  waiting(agentId: string): Task[];
  /** How many Tasks wait for `agentId`, counted from the keys without reading a record. */
  waitingCount(agentId: string): number;
  /**
   * Whether the message log holds work (a Task asking for a turn) with this id for `agentId`, as
   * committed: work the society was given before, within `messageLogLimit`. One key lookup.
   */
  workGiven(agentId: string, taskId: string): boolean;
  /** Appends a Task to the user's inbox; resolves with its sequence number. */
  appendInbox(task: Task): Promise<number>;
  inbox(page?: Page): Task[];
  /** The newest `count` Tasks of the user's inbox, oldest first (what a restart puts back, without reading the rest). */
  latestInbox(count: number): Task[];
  role(roleId: string): RoleRecord | undefined;
  roles(): RoleRecord[];
  agent(agentId: string): StoredAgentRecord | undefined;
  agents(): StoredAgentRecord[];
  /** Ids of the agents whose parent is `agentId`. */
  children(agentId: string): string[];
  terminations(): TerminationRecord[];
  /**
   * The oldest terminated agents past `terminatedAgentsKept` (at most `max`), oldest first: what
   * `forgetTerminated` would forget next.
   */
  terminatedPastRetention(max: number): RetiredAgent[];
  /**
   * Forgets terminated agents named by `terminatedPastRetention`: their records, terminations,
   * parent and child links, conversations and waiting Tasks, in one transaction. A live agent is
   * refused with `invalid_input`. Resolves with how many agents went.
   */
  forgetTerminated(agents: readonly RetiredAgent[]): Promise<number>;
  /** Records moved aside on open because they failed validation. */
  quarantined(): QuarantineEntry[];
  /**
   * Resolves once every write requested before the call has settled: durable (committed and
   * fsynced), or refused or failed (each write's own promise says which). Cheap when nothing
   * is in flight. What to await before an effect that must not be repeated after a crash.
   */
  flushed(): Promise<void>;
  /**
   * Resolves once lmdb has begun committing the writes issued so far. lmdb-js starts the commit
   * of one event turn's writes in the next check phase of the event loop, so work begun after
   * this runs alongside the commit instead of ahead of it.
   */
  committing(): Promise<void>;
  /** Waits for queued writes, flushes and closes; later calls reject. */
  close(): Promise<void>;
}
