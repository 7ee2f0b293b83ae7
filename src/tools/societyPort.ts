import type { Task } from '../task/index.js';

/**
 * What meta-tools may ask of the society they run in. The runtime implements it; tools never
 * see the runtime itself. Every method enforces the society's rules and throws a TroupeError
 * (coded) when a rule is broken.
 */
export interface SocietyPort {
  createRole(input: { name: string; prompt: string; createdBy: string }): { roleId: string; name: string };
  /** Spawns a child of `parent` with the role named (or id'd) `role`. */
  spawn(input: { role: string; parent: string }): { agentId: string; roleId: string };
  /** Sends `text` to `to` and waits for its final reply. */
  delegate(input: { from: string; to: string; text: string; parentTask: Task; timeoutMs: number; signal: AbortSignal }): Promise<Task>;
  /** Sends `text` to `to` without waiting; returns the Task sent. */
  send(input: { from: string; to: string; text: string; parentTask: Task }): Task;
  /** Terminates `agentId` and its descendants; only its parent may. */
  terminate(input: { agentId: string; by: string; reason: string }): Promise<void>;
}
