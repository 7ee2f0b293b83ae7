import { sessionConversationKey } from '../../../org/keys.js';
import type { ChatMessage } from '../../../task/index.js';
import type { Journal } from '../../journal/journal.js';
import { MemoryContext, type MemoryContextDeps, type TurnContext } from './memoryContext.js';

export type { TurnContext } from './memoryContext.js';

/**
 * An agent's contexts, one per session, so no session's turn ever sees another session's text.
 * Everything an agent knows of how contexts are kept is behind this interface and made by
 * `sessionContexts` below.
 */
export interface SessionContexts {
  /** The context of `sessionId`, made on first use (from the store after a restart), kept in memory within the bound. */
  context(sessionId: string): TurnContext;
  /** The steps of `sessionId`'s last turn as they are kept, without making a context for it (empty when it has none). */
  peek(sessionId: string): readonly ChatMessage[];
  /** Sessions whose context is in memory. */
  readonly inMemory: number;
  /** The agent is gone: unless its work resumes after a restart, every session's context is forgotten, in the store too. */
  release(resumable: boolean): void;
}

export interface SessionContextsDeps extends Omit<MemoryContextDeps, 'sessionId' | 'sink' | 'stored'> {
  readonly journal: Journal;
  /** Sessions kept in memory (`sessionsInMemoryPerAgent`); past it the least recently used idle one is let go. */
  readonly limit: number;
  /** Whether `sessionId` has a turn in progress: its context is never let go. */
  readonly inUse: (sessionId: string) => boolean;
}

/** The contexts of one agent: one per session, built from its memory around that session's turn. */
export function sessionContexts(deps: SessionContextsDeps): SessionContexts {
  return new ContextPerSession(deps);
}

/**
 * A context per session, its turn's steps kept as appended steps under `agentId/sessionId`. At
 * most `limit` stay in memory, most recently used last; past it the oldest idle one is let go,
 * its last turn's steps cleared in memory and in the store, so stored steps stay bounded too. It
 * stays reachable until that clear is durable, so reading it back from the store never finds the
 * steps it dropped (memory only, nothing is kept: an interrupted turn starts afresh).
 */
class ContextPerSession implements SessionContexts {
  readonly #deps: SessionContextsDeps;
  /** In memory, least recently used first. */
  readonly #live = new Map<string, MemoryContext>();
  /** Let go, until the journal says their writes are durable. */
  readonly #leaving = new Map<string, MemoryContext>();

  constructor(deps: SessionContextsDeps) {
    this.#deps = deps;
  }

  get inMemory(): number {
    return this.#live.size;
  }

  context(sessionId: string): TurnContext {
    const live = this.#live.get(sessionId);
    if (live !== undefined) {
      // Most recently used last: a Map keeps insertion order.
      this.#live.delete(sessionId);
      this.#live.set(sessionId, live);
      return live;
    }
    const context = this.#leaving.get(sessionId) ?? this.#load(sessionId);
    this.#leaving.delete(sessionId);
    this.#live.set(sessionId, context);
    this.#letGo();
    return context;
  }

  peek(sessionId: string): readonly ChatMessage[] {
    const kept = this.#live.get(sessionId) ?? this.#leaving.get(sessionId);
    return kept?.steps ?? this.#deps.journal.storedConversation(sessionConversationKey(this.#deps.agentId, sessionId));
  }

  release(resumable: boolean): void {
    this.#live.clear();
    this.#leaving.clear();
    if (!resumable) this.#deps.journal.clearConversations(this.#deps.agentId);
  }

  #load(sessionId: string): MemoryContext {
    const { journal, limit: _limit, inUse: _inUse, ...deps } = this.#deps;
    const key = sessionConversationKey(deps.agentId, sessionId);
    return new MemoryContext({ ...deps, sessionId, sink: journal.conversation(key), stored: journal.storedConversation(key) });
  }

  /** Lets go of the least recently used idle sessions until at most `limit` are in memory (sessions in a turn stay). */
  #letGo(): void {
    const { limit, inUse, journal } = this.#deps;
    if (this.#live.size <= limit) return;
    for (const [sessionId, context] of this.#live) {
      if (this.#live.size <= limit) return;
      if (inUse(sessionId)) continue;
      this.#live.delete(sessionId);
      // Its turn is over: nothing of it is needed to resume, so the store keeps steps for no more
      // sessions than memory does (the session's exchanges stay in the agent's memory, L1–L4).
      context.forget();
      this.#leaving.set(sessionId, context);
      const gone = (): void => {
        if (this.#leaving.get(sessionId) === context) this.#leaving.delete(sessionId);
      };
      void journal.durable().then(gone, gone);
    }
  }
}
