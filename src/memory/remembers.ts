import { Actions, type Task } from '../task/index.js';

/**
 * Whether an agent's memory keeps a Task it saw on the bus: one its agent sent or received,
 * except streamed thinking fragments and `working` progress updates (a turn starting, a tool
 * call being made), whose content the turn's own steps and its answer carry.
 */
export function remembers(agentId: string, task: Task): boolean {
  return (task.from === agentId || task.to === agentId) && task.action !== Actions.thinking && task.status !== 'working';
}
