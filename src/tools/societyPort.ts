import type { Task } from '../task/index.js';

/** One step of a plan as a model writes it. */
export interface PlanStepInput {
  readonly title: string;
  readonly detail?: string | undefined;
}

/** A recorded plan: each step became a `plan.step` Task, in order. */
export interface RecordedPlan {
  /** The id the steps hang from (their `parentId`): the Task the plan was made for. */
  readonly planId: string;
  readonly steps: readonly { readonly taskId: string; readonly index: number; readonly title: string }[];
}

/**
 * What meta-tools may ask of the society they run in. The runtime implements it; tools never
 * see the runtime itself. Every method enforces the society's rules and throws a TroupeError
 * (coded) when a rule is broken; the async ones reject with it instead.
 */
export interface SocietyPort {
  createRole(input: { name: string; prompt: string; createdBy: string }): Promise<{ roleId: string; name: string }>;
  /** Spawns a child of `parent` with the role named (or id'd) `role`. */
  spawn(input: { role: string; parent: string; parentTask?: Task }): Promise<{ agentId: string; roleId: string }>;
  /** Sends `text` to `to` and waits for its final reply. */
  delegate(input: { from: string; to: string; text: string; parentTask: Task; timeoutMs: number; signal: AbortSignal }): Promise<Task>;
  /** Sends `text` to `to` without waiting; returns the Task sent. */
  send(input: { from: string; to: string; text: string; parentTask: Task }): Task;
  /** Terminates `agentId` and its descendants; only its parent may. */
  terminate(input: { agentId: string; by: string; reason: string }): Promise<void>;
  /**
   * Shortens `agentId`'s own conversation to its system prompt, `summary` and the last
   * `keepRecent` messages (plus the step in flight); `messages` is its length afterwards.
   */
  compressContext(input: { agentId: string; summary: string; keepRecent: number }): { removed: number; kept: number; messages: number };
  /** Publishes each step as a `plan.step` Task from `agentId` to itself under `parentTask`, in order. */
  recordPlan(input: { agentId: string; goal: string; steps: readonly PlanStepInput[]; parentTask: Task }): RecordedPlan;
}
