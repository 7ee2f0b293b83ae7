import { sessionConversationKey } from '../../org/keys.js';
import type { ChatMessage } from '../../task/index.js';
import type { CompressibleConversation } from '../../tools/index.js';
import type { Journal } from '../journal/journal.js';
import { Conversation } from './conversation.js';

/** What a lane's turn works in: the messages the model is sent, and where the turn's steps go. */
export interface TurnContext extends CompressibleConversation {
  /** A snapshot: a model client may keep the request it was given, and later steps must not change it. */
  readonly messages: readonly ChatMessage[];
  append(...messages: ChatMessage[]): void;
  /** Whether the context is longer than `max` messages, so the agent should be told to compress it. */
  needsWarning(max: number): boolean;
}

/**
 * An agent's contexts, one per session, so no session's turn ever sees another session's text.
 * Everything an agent knows of how contexts are kept is behind this interface and made by
 * `sessionContexts` below: a context built from memory replaces "a conversation per session"
 * in this one file.
 */
export interface SessionContexts {
  /** The context of `sessionId`, made on first use (from the store after a restart), kept in memory within the bound. */
  context(sessionId: string): TurnContext;
  /** The messages of `sessionId` as they are kept, without making a context for it (empty when it has none). */
  peek(sessionId: string): readonly ChatMessage[];
  /** Sessions whose context is in memory. */
  readonly inMemory: number;
  /** The agent is gone: unless its work resumes after a restart, every session's context is forgotten, in the store too. */
  release(resumable: boolean): void;
}

export interface SessionContextsDeps {
  readonly agentId: string;
  readonly systemPrompt: string;
  readonly journal: Journal;
  /** Sessions kept in memory (`sessionsInMemoryPerAgent`); past it the least recently used idle one is let go. */
  readonly limit: number;
  /** Whether `sessionId` has a turn in progress: its context is never let go. */
  readonly inUse: (sessionId: string) => boolean;
}

/** The contexts of one agent: a conversation per session (system prompt + that session's exchanges). */
export function sessionContexts(deps: SessionContextsDeps): SessionContexts {
  return new ConversationPerSession(deps);
}

/**
 * A conversation per session, kept as appended steps under `agentId/sessionId`. At most `limit`
 * stay in memory, most recently used last; past it the oldest idle one is let go. It stays
 * reachable until what it wrote is durable, so reading it back from the store never misses a step
 * still on its way there (memory only, nothing is kept: that session starts afresh next time).
 */
class ConversationPerSession implements SessionContexts {
  readonly #deps: SessionContextsDeps;
  /** In memory, least recently used first. */
  readonly #live = new Map<string, Conversation>();
  /** Let go, until the journal says their writes are durable. */
  readonly #leaving = new Map<string, Conversation>();

  constructor(deps: SessionContextsDeps) {
    this.#deps = deps;
  }

  get inMemory(): number {
    return this.#live.size;
  }

  context(sessionId: string): Conversation {
    const live = this.#live.get(sessionId);
    if (live !== undefined) {
      // Most recently used last: a Map keeps insertion order.
      this.#live.delete(sessionId);
      this.#live.set(sessionId, live);
      return live;
    }
    const conversation = this.#leaving.get(sessionId) ?? this.#load(sessionId);
    this.#leaving.delete(sessionId);
    this.#live.set(sessionId, conversation);
    this.#letGo();
    return conversation;
  }

  peek(sessionId: string): readonly ChatMessage[] {
    const kept = this.#live.get(sessionId) ?? this.#leaving.get(sessionId);
    return kept?.messages ?? this.#deps.journal.storedConversation(sessionConversationKey(this.#deps.agentId, sessionId));
  }

  release(resumable: boolean): void {
    this.#live.clear();
    this.#leaving.clear();
    if (!resumable) this.#deps.journal.clearConversations(this.#deps.agentId);
  }

  #load(sessionId: string): Conversation {
    const { journal, agentId, systemPrompt } = this.#deps;
    const key = sessionConversationKey(agentId, sessionId);
    const sink = journal.conversation(key);
    const stored = journal.storedConversation(key);

    return stored.length > 0 ? new Conversation(stored, sink) : new Conversation(systemPrompt, sink);
  }

  /** Lets go of the least recently used idle sessions until at most `limit` are in memory (sessions in a turn stay). */
  #letGo(): void {
    const { limit, inUse, journal } = this.#deps;
    if (this.#live.size <= limit) return;
    for (const [sessionId, conversation] of this.#live) {
      if (this.#live.size <= limit) return;
      if (inUse(sessionId)) continue;
      this.#live.delete(sessionId);
      this.#leaving.set(sessionId, conversation);
      const gone = (): void => {
        if (this.#leaving.get(sessionId) === conversation) this.#leaving.delete(sessionId);
      };
      void journal.durable().then(gone, gone);
    }
  }
}
