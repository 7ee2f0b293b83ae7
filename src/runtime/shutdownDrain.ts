import type { EventBus } from '../bus/index.js';
import type { Clock } from '../clock.js';
import type { Journal } from './journal/journal.js';
import { waitForQuiet } from './society/quiet.js';
import type { Society } from './society/society.js';

/** What a shutdown's drain found: whether the society went quiet in time, the agents still live, and the Tasks left unanswered. */
export interface DrainOutcome {
  readonly drained: boolean;
  readonly live: readonly string[];
  readonly pendingTasks: number;
}

/**
 * Waits up to `drainTimeoutMs` for the society to be quiet (no agent working or with mail, no
 * request waiting on the bus), then counts what is left: the live agents' unanswered Tasks and
 * those agents never started after a restore still have in the store.
 */
export async function drainSociety(society: Society, bus: EventBus, journal: Journal, clock: Clock, drainTimeoutMs: number): Promise<DrainOutcome> {
  const quiet = (): boolean => society.busyCount === 0 && bus.pendingRequests === 0;
  const drained = await waitForQuiet(quiet, [society.activity$, bus.on('*')], drainTimeoutMs, clock);
  const live = society.liveIds();
  const stillStored = society.restoring.ids().reduce((sum, id) => sum + journal.storedWaitingCount(id), 0);
  const pendingTasks = live.reduce((sum, id) => sum + (society.agent(id)?.unanswered ?? 0), stillStored);
  return { drained, live, pendingTasks };
}
