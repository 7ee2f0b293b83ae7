import type { Subscription } from 'rxjs';
import { type Actor, type InspectionEvent, createActor, fromPromise } from 'xstate';
import { type ShutdownSummary, runtimeMachine } from '../../machines/runtime.machine.js';
import type { EventBus } from '../bus/index.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { ArtifactStore } from '../org/index.js';
import type { McpServers } from '../tools/index.js';
import type { Journal } from './journal/journal.js';
import type { RuntimeMemory } from './memory/runtimeMemory.js';
import { drainSociety } from './shutdownDrain.js';
import type { Society } from './society/society.js';
import type { UserEndpoint } from './userEndpoint.js';

/** What the runtime's actor drains and stops at a shutdown. */
export interface RuntimeActorParts {
  readonly society: Society;
  readonly bus: EventBus;
  readonly journal: Journal;
  readonly user: UserEndpoint;
  readonly clock: Clock;
  readonly logger: Logger;
  /** With `nodes`: the owner's answers to the nodes' agents' org requests, stopped with the agents. */
  readonly orgRequests: Subscription | undefined;
  readonly inspect: ((event: InspectionEvent) => void) | undefined;
}

/** Waits for the society to be quiet (up to `drainTimeoutMs`), stops every agent and the user endpoint, and summarises. */
async function drainAndStop(parts: RuntimeActorParts, drainTimeoutMs: number): Promise<ShutdownSummary> {
  const { society, bus, journal, clock, user } = parts;
  const started = clock.now();
  const { drained, live, pendingTasks } = await drainSociety(society, bus, journal, clock, drainTimeoutMs);
  await society.stopAll();
  parts.orgRequests?.unsubscribe();
  society.close();
  user.close();
  return { agents: society.records().length, terminatedAgents: live.length, pendingTasks, drained, elapsedMs: clock.now() - started };
}

/** The runtime's actor (`runtimeMachine`, in `spawning`), started, with its drain and its reports provided. */
export function startRuntimeActor(parts: RuntimeActorParts): Actor<typeof runtimeMachine> {
  const { logger, inspect } = parts;
  const machine = runtimeMachine.provide({
    actors: { drainSociety: fromPromise(({ input }) => drainAndStop(parts, input.drainTimeoutMs)) },
    actions: {
      stopIntake: () => parts.user.drain(),
      reportSummary: (_, { summary }) => logger.info({ ...summary }, 'runtime shut down'),
      reportFailure: (_, { error }) => logger.error({ error: String(error) }, 'runtime failed'),
    },
  });
  const actor = createActor(machine, { id: 'runtime', ...(inspect === undefined ? {} : { inspect }) });
  actor.start();
  return actor;
}

/** Lets go of what a runtime opened, once its agents have stopped: its MCP servers, then memories, bus, artifacts and store, in that order. */
export async function closeRuntimeParts(parts: {
  readonly mcp: McpServers | undefined;
  readonly memory: RuntimeMemory;
  readonly bus: EventBus;
  readonly artifacts: ArtifactStore;
  readonly journal: Journal;
}): Promise<void> {
  await parts.mcp?.close();
  await parts.memory.close();
  await parts.bus.close();
  await parts.artifacts.idle();
  await parts.journal.close();
}
