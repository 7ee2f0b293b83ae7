import type { EventBus } from '../bus/index.js';
import type { Clock } from '../clock.js';
import type { IdGenerator } from '../ids.js';
import type { GraphName, JsonValue, Task, TaskRef, TerminationMode } from '../task/index.js';

/** A tool call of a turn: the Task the turn is on and the call's id (the model's). */
export interface SpawnCallRef {
  readonly taskId: string;
  readonly toolCallId: string;
}

/** An agent's conversation in one session as `compress_context` sees it. */
export interface CompressibleConversation {
  readonly length: number;
  /** Keeps the system prompt, `summary` and the last `keepRecent` messages (plus the step in flight). */
  compress(summary: string, keepRecent: number): { readonly removed: number; readonly kept: number };
}

/** What an agent asks to remember: a fact of its Task's session (`scope: 'session'`) or of all its sessions (`'agent'`). */
export interface RememberRequest {
  readonly agentId: string;
  readonly sessionId: string;
  readonly text: string;
  readonly scope: 'session' | 'agent';
  readonly importance: number;
}

/** A fact as an agent's tools show it; `merged` when it was folded into a fact the agent already had. */
export interface RememberedFact {
  readonly id: string;
  readonly text: string;
  readonly scope: 'session' | 'agent';
  readonly importance: number;
  readonly merged: boolean;
}

/** A search of an agent's own facts: those of `sessionId` and its agent-scope ones. */
export interface FactSearchRequest {
  readonly agentId: string;
  readonly sessionId: string;
  readonly query: string;
  readonly k: number;
}

/** A fact found, with its similarity to the query (higher is closer, at most 1). */
export interface FoundFact {
  readonly id: string;
  readonly text: string;
  readonly scope: 'session' | 'agent';
  readonly importance: number;
  readonly similarity: number;
  /** What each retrieval channel said of it: `vector` its cosine, `bm25` its normalised keyword score, `graph` its score through a link from a better hit, null where a channel did not find it. */
  readonly channels: { readonly bm25: number | null; readonly vector: number | null; readonly graph: number | null };
  /** Set when it is a node of the agent's graph (an event or a note: `explore` shows its links), not a fact. */
  readonly node?: { readonly kind: 'event' | 'note' };
  /** What a program stored it with (`rt.remember`, an import), e.g. its source's id. */
  readonly metadata?: Readonly<Record<string, JsonValue>>;
}

/** Who asks a graph tool for what, in which session, on which graph (`own`, or `society` when its role's policy allows it). */
export interface GraphAccess {
  readonly agentId: string;
  readonly sessionId: string;
  readonly graph: GraphName;
}

/** Whether a node a graph tool makes belongs to the session of the Task at hand (`session`) or to every session of its graph (`agent`). */
export type NodeScope = 'session' | 'agent';

/**
 * One thing a graph tool asks of a graph, its arguments checked against the tool's schema (the
 * graph checks them again against its own limits and rules). Statuses and edge types are the
 * graph's (`src/graph`), written out here because tools do not import it.
 */
export type GraphOperation =
  | {
      readonly op: 'add_note';
      readonly content: string;
      readonly title?: string | undefined;
      readonly tags?: readonly string[] | undefined;
      readonly source?: string | undefined;
      readonly scope: NodeScope;
    }
  | {
      readonly op: 'create_event';
      readonly content: string;
      readonly priority?: number | undefined;
      readonly dueAt?: number | undefined;
      readonly scope: NodeScope;
    }
  | {
      readonly op: 'link';
      readonly from: string;
      readonly to: string;
      readonly type: 'depends_on' | 'part_of' | 'references' | 'produces';
      readonly weight?: number | undefined;
    }
  | { readonly op: 'explore'; readonly id?: string | undefined; readonly depth: number; readonly maxNodes: number; readonly includeArchived: boolean }
  | { readonly op: 'set_status'; readonly id: string; readonly status: 'pending' | 'in_progress' | 'done' | 'archived' };

/** Work a delegating agent described by a role's name or in words, instead of naming an agent. */
export interface WorkRequest {
  readonly from: string;
  readonly request: string;
  /** The turn delegating: the routing record and any spawn notice join its tree. */
  readonly parentTask: TaskRef;
  /** The delegating tool call: a turn resumed after a crash that spawns for it again gets the same child. */
  readonly call?: SpawnCallRef;
  readonly signal?: AbortSignal;
}

/** Where described work goes: an agent of the chosen role (an idle one reused, or one spawned), or nowhere, and why. */
export interface RoutedWork {
  /** Null when no role fits well enough: the work must not be sent anywhere. */
  readonly agentId: string | null;
  readonly role: string | null;
  readonly spawned: boolean;
  /** One sentence: why this role, or why none. */
  readonly reason: string;
  /** The decision in one short line, as `troupe messages` shows it: `keyword → poet-1: poet 0.61 ≥ 0.15, spawned`. */
  readonly summary: string;
  /** The router's whole decision (method, candidates and scores), as plain JSON for a Task's metadata. */
  readonly decision: Readonly<Record<string, JsonValue>>;
}

/** A role an agent asks for (`create_role`): `handoffs` are the targets its agents may hand a conversation to. */
export interface RoleRequest {
  readonly name: string;
  readonly prompt: string;
  readonly description?: string;
  readonly handoffs?: readonly string[];
  readonly createdBy: string;
}

/**
 * The one port through which meta-tools reach the society they run in. The runtime implements
 * it; tools never see the runtime itself. Every method enforces the society's rules and throws a
 * TroupeError (coded) when a rule is broken; the async ones reject with it instead.
 */
export interface SocietyPort {
  /** Where Tasks go, and what they are made with. */
  readonly bus: EventBus;
  readonly ids: IdGenerator;
  readonly clock: Clock;
  createRole(input: RoleRequest): Promise<{ roleId: string; name: string }>;
  /**
   * Spawns a child of `parent` with the role named (or id'd) `role`; its notice joins `parentTask`'s
   * tree. With `call` (the spawning tool call), spawning again for the same call gives the child
   * that call spawned before, so a turn resumed after a crash never spawns a second one.
   */
  spawn(input: { role: string; parent: string; parentTask?: Task; call?: SpawnCallRef }): Promise<{ agentId: string; roleId: string }>;
  /**
   * Terminates `agentId` and its descendants, draining them first or not; only its parent may.
   * `parentTask`: the turn asking, whose session the `agent.terminated` notice joins. An agent its
   * parent asks for again once it is terminated is no error: it resolves with how it ended.
   */
  terminate(input: { agentId: string; by: string; reason: string; mode: TerminationMode; parentTask?: Task }): Promise<{ mode: TerminationMode }>;
  /** Throws `unknown_agent` or `agent_terminated` unless `agentId` is live and not being terminated: it may take new work. */
  requireLive(agentId: string): void;
  /** Throws as `requireLive` unless `agentId` still runs turns: live and not stopping (a draining agent still works). */
  requireRunning(agentId: string): void;
  /** The conversation in `sessionId` of an agent that still runs turns (throws as `requireRunning`). */
  conversationOf(agentId: string, sessionId: string): CompressibleConversation;
  /** Stores a fact in the agent's long-term memory (L4); rejects with `memory_full` past its limit, `invalid_input` naming a field past another. */
  remember(request: RememberRequest): Promise<RememberedFact>;
  /** The agent's facts closest to the query, closest first (each counts a retrieval). */
  searchMemory(request: FactSearchRequest): Promise<FoundFact[]>;
  /**
   * Does `operation` on the graph `access` names and resolves with what the model reads of it (as
   * JSON); rejects naming the rule or field when the graph refuses it (nothing changed), with
   * `invalid_input` when the agent's policy keeps it from that graph.
   */
  graph(access: GraphAccess, operation: GraphOperation): Promise<Readonly<Record<string, JsonValue>>>;
  /**
   * Picks the agent for work described by a role or in words: a live idle agent of the role the
   * router chose (the caller's own children first), else a new child of the caller within the
   * society's limits (rejecting with their refusal). Resolves with no agent when no role fits.
   */
  routeWork(request: WorkRequest): Promise<RoutedWork>;
}
