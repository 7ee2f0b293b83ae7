import type { Tracer } from '@opentelemetry/api';
import type { Subscription } from 'rxjs';
import type { Actor } from 'xstate';
import type { runtimeMachine } from '../../machines/runtime.machine.js';
import type { EventBus } from '../bus/index.js';
import type { Clock } from '../clock.js';
import { TroupeError } from '../errors.js';
import { type IdGenerator, randomIds } from '../ids.js';
import type { Logger } from '../logger.js';
import type { ModelClient } from '../llm/index.js';
import type { ArtifactStore } from '../org/index.js';
import type { RunTap } from '../replay/index.js';
import type { SkillHub, SkillProblem } from '../skills/index.js';
import type { Redactor } from '../task/index.js';
import type { ToolRegistry } from '../tools/index.js';
import type { RuntimeConfig } from './config/config.js';
import type { Journal } from './journal/journal.js';
import { DurableOrder } from './journal/durableOrder.js';
import { HeldUntilDurable } from './limits/heldUntilDurable.js';
import { IntakeGate } from './limits/intakeGate.js';
import type { Measurements } from './society/measurements.js';
import type { MemorySettings } from './memory/memoryOptions.js';
import type { RuntimeMemory } from './memory/runtimeMemory.js';
import { MemoryAccess } from './memoryAccess.js';
import { ownNodes } from './nodes/nodesOwner.js';
import { SocietyApprovals } from './nodes/societyApprovals.js';
import { startRuntimeActor } from './runtimeActor.js';
import type { LoadedSkillsOption } from './runtimeOpening.js';
import type { RuntimeOptions } from './runtimeOptions.js';
import { BackgroundRestore } from './society/backgroundRestore.js';
import { SessionHandoffs } from './society/sessionHandoffs.js';
import { Society } from './society/society.js';
import { societyEnvironment } from './society/societyEnvironment.js';
import { UserEndpoint } from './userEndpoint.js';
import { UserIntake } from './userIntake.js';
import { AgentViews } from './views/agentViews.js';
import type { GaugeSources } from './society/runtimeGauges.js';

/**
 * What only troupe itself sets: `betweenRestoreSlices` replaces the background restore's turn of
 * the event loop before each slice (tests); `tap` is a recording or a replay of the run.
 */
export interface RuntimeSeams {
  readonly betweenRestoreSlices?: () => Promise<void>;
  readonly tap?: RunTap;
}

/** The options with what `runtimeOpening` resolved from them. */
export type OpenedOptions = RuntimeOptions &
  RuntimeSeams & {
    logger: Logger;
    clock: Clock;
    redactor: Redactor;
    memorySettings: MemorySettings;
    loadedSkills: LoadedSkillsOption;
    measurements: Measurements;
  };

/** A runtime's parts, wired to each other: what the `Runtime` class's methods are doors onto. */
export interface RuntimeParts {
  readonly config: RuntimeConfig;
  readonly journal: Journal;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly logger: Logger;
  readonly redactor: Redactor;
  readonly model: ModelClient;
  readonly bus: EventBus;
  readonly tools: ToolRegistry;
  readonly skills: SkillHub;
  readonly skillProblems: readonly SkillProblem[];
  readonly tracer: Tracer;
  readonly society: Society;
  readonly user: UserEndpoint;
  readonly userIntake: UserIntake;
  /** Where each session's user talks since a handoff, and where handoffs go. */
  readonly handoffs: SessionHandoffs;
  /** Starts a restored organisation's agents in the background, once the organisation is known. */
  readonly restore: BackgroundRestore;
  /** Every live agent's memory and the compactor beside the turns; closed after the agents stop and before the store. */
  readonly memory: RuntimeMemory;
  /** What programs read of agents' memories and graphs and write into them. */
  readonly access: MemoryAccess;
  readonly artifacts: ArtifactStore;
  /** The calls waiting for a person: this runtime's, and with `nodes` those of its agents on other nodes. */
  readonly approvals: SocietyApprovals;
  readonly views: AgentViews;
  /** What every output holds until the store commits (the user endpoint, each `events()` stream): intake keeps it bounded. */
  readonly heldUntilDurable: HeldUntilDurable;
  readonly tap: RunTap | undefined;
  /** What `gauges()` reads. */
  readonly gauges: GaugeSources;
  readonly measurements: Measurements;
  readonly actor: Actor<typeof runtimeMachine>;
}

/** Refuses new work unless the runtime's actor is `running`. */
export function requireRunning(actor: Actor<typeof runtimeMachine>): void {
  const state = actor.getSnapshot().value;
  if (state !== 'running') throw new TroupeError('intake_closed', `the runtime is ${state} and takes no new work`);
}

/** The owner's side of a society spread over nodes, or this runtime's approvals alone. */
function ownerParts(
  options: OpenedOptions,
  config: RuntimeConfig,
  owner: Omit<Parameters<typeof ownNodes>[0], 'maxPendingApprovals' | 'nodeRequestTimeoutMs'>,
): { orgRequests: Subscription | undefined; approvals: SocietyApprovals } {
  const { nodes } = options;
  if (nodes === undefined) return { orgRequests: undefined, approvals: new SocietyApprovals(owner.desk) };
  return ownNodes({ ...owner, maxPendingApprovals: config.maxPendingApprovals, nodeRequestTimeoutMs: nodes.nodeRequestTimeoutMs });
}

/** Builds a runtime's parts from its opened options, its config and its journal, and starts its actor (in `spawning`). */
export function wireRuntime(options: OpenedOptions, config: RuntimeConfig, journal: Journal): RuntimeParts {
  const { clock, logger, inspect, redactor, measurements } = options;
  const ids = options.ids ?? randomIds;
  // Each Task an agent has taken and not answered will add to its memory, at least its answer.
  const unanswered = (agentId: string): number => society.startRestored(agentId)?.unanswered ?? 0;
  const heldUntilDurable = new HeldUntilDurable(config.maxHeldUntilDurable);
  const gate = new IntakeGate(
    config.mailboxLimit,
    (agentId, incoming) => heldUntilDurable.refusal() ?? environment.memory.refusal(agentId, incoming, unanswered(agentId)),
  );
  const environment = societyEnvironment({ ...options, ids, modelCalls: measurements.modelCalls }, config, journal);
  const { model, bus, tools, memory, skills, artifacts } = environment;
  const handoffs = new SessionHandoffs({ society: (): Society => society, journal, config, logger, filter: options.handoffs?.filter });
  const society = new Society({ ...environment.deps, handoffs }, options.nodes ?? {});
  const { orgRequests, approvals } = ownerParts(options, config, { bus, society, clock, ids, logger, desk: environment.approvals });
  const known = (id: string): boolean => society.record(id) !== undefined;
  const access = new MemoryAccess({ hub: memory.hub, known, maxImportItems: config.maxImportItems, redactor });
  const restore = new BackgroundRestore(society.restoring, {
    sliceTasks: config.restoreSliceTasks,
    logger,
    clock,
    betweenSlices: options.betweenRestoreSlices,
  });
  const order = new DurableOrder(journal, logger, heldUntilDurable);
  const user = new UserEndpoint({ bus, logger, inboxLimit: config.inboxLimit, inspect, order });
  const requireOpen = (): void => requireRunning(actor);
  const userIntake = new UserIntake({ society, journal, user, gate, ids, clock, maxInputChars: config.maxInputChars, requireOpen });
  journal.connect(bus);
  bus.faults$.subscribe((fault) => logger.error({ subscriber: fault.subscriber, taskId: fault.task.id, error: String(fault.error) }, 'bus subscriber failed'));
  const actor = startRuntimeActor({ society, bus, journal, user, clock, logger, orgRequests, inspect });
  return {
    ...{
      config,
      journal,
      clock,
      ids,
      logger,
      redactor,
      model,
      bus,
      tools,
      skills,
      skillProblems: options.loadedSkills.problems,
      tracer: environment.deps.tracing.tracer,
    },
    ...{ society, user, userIntake, handoffs, restore, memory, access, artifacts, approvals, heldUntilDurable, measurements },
    views: new AgentViews(society, journal),
    tap: options.tap,
    gauges: { society, limiter: environment.limiter, approvals, memory: memory.hub },
    actor,
  };
}
