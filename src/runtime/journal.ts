import type { ChatMessage } from '../llm/index.js';
import type { ConversationStep, OrgStore } from '../org/index.js';
import type { Task } from '../task/index.js';
import type { AgentRecord, Termination } from './agentCell.js';
import type { ConversationSink } from './conversation.js';
import type { Role } from './roleBook.js';

/**
 * Where the society writes down its organisation. Each call resolves once the write is
 * durable, so what the runtime acknowledged survives a crash. Absent in a memory-only runtime.
 */
export interface Journal {
  role(role: Role): Promise<void>;
  agent(record: AgentRecord): Promise<void>;
  terminated(termination: Termination): Promise<void>;
  /** Appends a Task to its tree's message log (keyed by session, i.e. the root task's id). */
  task(task: Task): Promise<void>;
  /** Appends a Task addressed to the user to the inbox. */
  inbox(task: Task): Promise<void>;
  /** Keeps a Task `agentId` accepted until it is answered, so a restart hands it back. */
  waiting(agentId: string, task: Task): Promise<void>;
  /** The Task was answered (or refused, or cancelled): nothing to hand back. */
  answered(agentId: string, taskId: string): Promise<void>;
  /** The Tasks `agentId` had accepted and not answered, oldest first. */
  storedWaiting(agentId: string): Task[];
  /** Keeps `agentId`'s conversation as appended steps; failures are logged by the caller. */
  conversation(agentId: string, onError: (error: unknown) => void): ConversationSink;
  /** A stored conversation, ready to continue. */
  storedConversation(agentId: string): ChatMessage[];
}

/** A Journal on the LMDB organisation store. */
export function storeJournal(store: OrgStore): Journal {
  return {
    role: async (role) => {
      await store.createRole({
        id: role.id,
        name: role.name,
        prompt: role.prompt,
        createdBy: role.createdBy,
        createdAt: role.createdAt,
        ...(role.tools === undefined ? {} : { tools: role.tools }),
      });
    },
    agent: async (record) => {
      await store.createAgent({ id: record.id, roleId: record.roleId, parentAgentId: record.parentAgentId, createdAt: record.createdAt });
    },
    terminated: async (termination) => {
      await store.markTerminated({ agentId: termination.agentId, terminatedBy: termination.terminatedBy, reason: termination.reason, at: termination.at });
    },
    task: async (task) => {
      await store.appendMessage(task.sessionId, task);
    },
    inbox: async (task) => {
      await store.appendInbox(task);
    },
    waiting: (agentId, task) => store.addWaiting(agentId, task),
    answered: (agentId, taskId) => store.removeWaiting(agentId, taskId),
    storedWaiting: (agentId) => store.waiting(agentId),
    // Writes are queued in call order by the store, so steps land in the order they were made.
    conversation: (agentId, onError) => ({
      appended: (messages) => void store.appendConversation(agentId, messages.map(toStep)).catch(onError),
      replaced: (messages) => {
        void store.clearConversation(agentId).catch(onError);
        void store.appendConversation(agentId, messages.map(toStep)).catch(onError);
      },
      cleared: () => void store.clearConversation(agentId).catch(onError),
    }),
    storedConversation: (agentId) => store.conversation(agentId).map(fromStep),
  };
}

function toStep(message: ChatMessage): ConversationStep {
  switch (message.role) {
    case 'system':
    case 'user':
      return { role: message.role, content: message.content };
    case 'assistant':
      return { role: 'assistant', content: message.content, toolCalls: message.toolCalls.map((call) => ({ ...call })) };
    case 'tool':
      return { role: 'tool', content: message.content, toolCallId: message.toolCallId, name: message.name };
    default: {
      const never: never = message;
      return never;
    }
  }
}

function fromStep(step: ConversationStep): ChatMessage {
  switch (step.role) {
    case 'system':
    case 'user':
      return { role: step.role, content: step.content };
    case 'assistant':
      return { role: 'assistant', content: step.content, toolCalls: (step.toolCalls ?? []).map((call) => ({ ...call })) };
    case 'tool':
      return { role: 'tool', content: step.content, toolCallId: step.toolCallId ?? '', name: step.name ?? '' };
    default: {
      const never: never = step.role;
      return never;
    }
  }
}
