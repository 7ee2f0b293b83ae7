import type { OrgStore } from '../org/index.js';
import type { Task } from '../task/index.js';
import type { AgentRecord, Termination } from './agentCell.js';
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
  };
}
