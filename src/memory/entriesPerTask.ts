import { type Task, answersWork } from '../task/index.js';

/** Answers after which both running counts are halved, so the estimate follows recent work. */
const estimateWindow = 200;

/**
 * How many entries one Task of work adds to an agent's memory, on average over its recent
 * answers: its request, the delegations, spawns and replies of its turns, and its answer. Intake
 * multiplies it by the Tasks the agent has taken and not answered before taking new work, so
 * what the work in flight adds fits in L1's backlog instead of being refused there.
 */
export class EntriesPerTask {
  #entries = 0;
  #answers = 0;

  /** Notes an entry the memory kept or refused (either way, the work it belongs to went on). */
  saw(agentId: string, task: Task): void {
    this.#entries++;
    if (task.from !== agentId || task.to === agentId || !answersWork(task)) return;
    this.#answers++;
    if (this.#answers < estimateWindow) return;
    this.#answers /= 2;
    this.#entries /= 2;
  }

  /** The average, 2 (a request and its answer) before any answer, and never more than `cap`, so one unusual Task cannot shut intake. */
  average(cap: number): number {
    return Math.min(cap, Math.max(1, this.#answers === 0 ? 2 : this.#entries / this.#answers));
  }
}
