import type { AgentRecord, Termination } from '../org/index.js';
import { internalsOf } from './internals.js';
import type { Runtime } from './runtime.js';

/** What a test may look at of a runtime's society, beyond `rt.agents()`: exported by `troupe/testing`. */
export interface SocietyView {
  /** The ids of the live agents (spawned, not terminated), oldest first. */
  liveIds(): string[];
  /** The agent records in memory: the live agents and the most recent terminated ones. */
  records(): AgentRecord[];
  /** How the terminated agents still in memory ended, oldest first. */
  terminations(): readonly Termination[];
}

/** The society inside `runtime`, seen through `SocietyView`. */
export function societyOf(runtime: Runtime): SocietyView {
  const { society } = internalsOf(runtime);
  return { liveIds: () => society.liveIds(), records: () => society.records(), terminations: () => society.terminations() };
}
