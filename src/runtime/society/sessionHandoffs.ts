import { TroupeError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { ChatMessage, Task } from '../../task/index.js';
import type { SpawnCallRef } from '../../tools/index.js';
import type { HandoffDesk, HandoffFilter, HandoffInfo } from '../agent/handoffDesk.js';
import { handoffMarkOf } from '../agent/handOver.js';
import type { RuntimeConfig } from '../config/config.js';
import type { Journal } from '../journal/journal.js';
import type { Society } from './society.js';

export interface SessionHandoffsDeps {
  /** The society handoffs resolve their targets in (made after this, hence a function). */
  readonly society: () => Society;
  readonly journal: Journal;
  readonly config: RuntimeConfig;
  readonly logger: Logger;
  readonly filter?: HandoffFilter | undefined;
}

/**
 * A runtime's handoffs: where each goes, what of the conversation it carries, and which agent
 * each session's user talks to since. The session's agent is kept in memory (the
 * `sessionAgentsInMemory` most recently used) and, with a data dir, in the org store, so the user's
 * next message in a session goes to the agent handed to, also after a restart.
 */
export class SessionHandoffs implements HandoffDesk {
  readonly #deps: SessionHandoffsDeps;
  /** Session → agent, least recently used first. */
  readonly #agents = new Map<string, string>();

  constructor(deps: SessionHandoffsDeps) {
    this.#deps = deps;
  }

  /** The live agent the user of `sessionId` talks to since a handoff; undefined for none (root's), or when it is terminated. */
  agentFor(sessionId: string): string | undefined {
    const agentId = this.#agents.get(sessionId) ?? this.#deps.journal.storedSessionAgent(sessionId);
    if (agentId === undefined) return undefined;
    this.#remember(sessionId, agentId);
    if (this.#deps.society().isActive(agentId)) return agentId;
    this.#deps.logger.info({ sessionId, agentId }, 'the agent of this session is gone; root takes it back');
    return undefined;
  }

  handedOver(sessionId: string, agentId: string): void {
    this.#remember(sessionId, agentId);
    this.#deps.journal.sessionAgent(sessionId, agentId);
  }

  async resolve(from: string, target: string, task: Task, call: SpawnCallRef): Promise<string> {
    const { config } = this.#deps;
    const mark = handoffMarkOf(task);
    if (mark.count >= config.maxHandoffsPerTask) {
      throw new TroupeError(
        'handoff_limit',
        `task ${task.id} was handed over ${mark.count} times already, its limit (maxHandoffsPerTask); answer it yourself`,
        { context: { agentId: from, taskId: task.id } },
      );
    }
    const to = await this.#targetAgent(from, target, task, call);
    if (!this.#hasRoom(to)) {
      throw new TroupeError(
        'mailbox_full',
        `agent ${to} has ${config.mailboxLimit} Tasks waiting (mailboxLimit); answer the task yourself or hand it elsewhere`,
        { context: { agentId: from, taskId: task.id } },
      );
    }
    if (to === from) throw new TroupeError('invalid_input', `${target} is agent ${from} itself; answer the task instead`);
    if (mark.path.includes(to)) {
      throw new TroupeError('handoff_limit', `agent ${to} had task ${task.id} before and handed it on; answer it yourself or hand it elsewhere`, {
        context: { agentId: from, taskId: task.id },
      });
    }
    return to;
  }

  conversation(messages: readonly ChatMessage[], handoff: HandoffInfo): ChatMessage[] {
    const filtered = this.#deps.filter === undefined ? messages : this.#deps.filter(messages, handoff);
    const kept = filtered.slice(-this.#deps.config.maxHandoffMessages);
    // A tool result whose call was cut off would be refused by a model's API.
    const start = kept.findIndex((message) => message.role !== 'tool');
    return start < 0 ? [] : kept.slice(start);
  }

  /** The agent id `target` names (a live agent), else a live agent of the role it names (oldest first), else a new child of `from` with that role. */
  async #targetAgent(from: string, target: string, task: Task, call: SpawnCallRef): Promise<string> {
    const society = this.#deps.society();
    if (society.record(target) !== undefined) {
      society.requireLive(target);
      return target;
    }
    const role = society.roles.find(target);
    if (role === undefined) throw new TroupeError('invalid_input', `no agent or role "${target}" to hand off to`);
    // The oldest live agent of the role with room in its mailbox; when every one is full, a new one.
    const live = society.records().find((record) => record.roleId === role.id && record.id !== from && society.isActive(record.id) && this.#hasRoom(record.id));
    if (live !== undefined) return live.id;
    return (await society.spawn({ role: role.id, parent: from, parentTask: task, call })).agentId;
  }

  /** Whether a Task handed to `agentId` would fit its mailbox (one on another node is held to its limit there). */
  #hasRoom(agentId: string): boolean {
    const agent = this.#deps.society().agent(agentId);
    return agent === undefined || agent.waitingForTurn < this.#deps.config.mailboxLimit;
  }

  #remember(sessionId: string, agentId: string): void {
    this.#agents.delete(sessionId);
    this.#agents.set(sessionId, agentId);
    if (this.#agents.size <= this.#deps.config.sessionAgentsInMemory) return;
    const oldest = this.#agents.keys().next();
    if (oldest.done !== true) this.#agents.delete(oldest.value);
  }
}
