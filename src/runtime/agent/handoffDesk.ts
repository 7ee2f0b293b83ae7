import type { ChatMessage, Task } from '../../task/index.js';
import type { SpawnCallRef } from '../../tools/index.js';

/** Who hands which Task to whom: what a handoff filter is told besides the messages. */
export interface HandoffInfo {
  readonly from: string;
  readonly to: string;
  readonly task: Task;
}

/**
 * Chooses what of the session's conversation a handoff passes on (`createRuntime({ handoffs: {
 * filter } })`): given the messages the agent handing over had (its system messages already left
 * out), returns those its target gets; the newest `maxHandoffMessages` of them are kept.
 */
export type HandoffFilter = (messages: readonly ChatMessage[], handoff: HandoffInfo) => readonly ChatMessage[];

/**
 * What an agent's handoffs go through: the society's side of a `transfer_to_<name>` call. A
 * runtime provides one; an agent without one (hosted on a node) has its handoffs refused.
 */
export interface HandoffDesk {
  /**
   * The live agent a handoff of `task` from `from` to `target` (an agent id or a role name) goes
   * to: that agent, a live agent of that role, or a new child of `from` with it (spawned once per
   * `call`). Rejects with a coded TroupeError naming the rule broken (`handoff_limit`, `invalid_input`, …).
   */
  resolve(from: string, target: string, task: Task, call: SpawnCallRef): Promise<string>;
  /** What the target gets of the conversation: filtered, then the newest `maxHandoffMessages`. */
  conversation(messages: readonly ChatMessage[], handoff: HandoffInfo): ChatMessage[];
  /** The user of `sessionId` talks to `agentId` from now on (durably with a data dir). */
  handedOver(sessionId: string, agentId: string): void;
}
