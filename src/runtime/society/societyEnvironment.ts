import type { InspectionEvent } from 'xstate';
import { EventBus } from '../../bus/index.js';
import type { Clock } from '../../clock.js';
import type { IdGenerator } from '../../ids.js';
import type { Logger } from '../../logger.js';
import { type ModelClient, OfflineModel, type RetryPolicy, RetryingModel, defaultRetryPolicy } from '../../llm/index.js';
import type { Redactor } from '../../task/index.js';
import { type Tool, ToolRegistry, metaTools } from '../../tools/index.js';
import type { RuntimeConfig } from '../config/config.js';
import type { Journal } from '../journal/journal.js';
import { limitedModel, unqueuedModel } from '../limits/limitedModel.js';
import type { MemorySettings } from '../memory/memoryOptions.js';
import { RuntimeMemory } from '../memory/runtimeMemory.js';
import { ModelCallLimiter } from '../limits/modelCallLimiter.js';
import type { SocietyDeps } from './liveAgents.js';

/** What a society's environment is made from: a runtime's options, resolved. */
export interface EnvironmentOptions {
  readonly model?: ModelClient | undefined;
  readonly models?: Readonly<Record<string, ModelClient>> | undefined;
  readonly retry?: Partial<RetryPolicy> | false | undefined;
  readonly bus?: EventBus | undefined;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly logger: Logger;
  readonly tools?: readonly Tool[] | undefined;
  readonly inspect?: ((event: InspectionEvent) => void) | undefined;
  readonly redactor: Redactor;
  readonly memorySettings: MemorySettings;
}

/** A society's shared parts: the bus, the model behind the call limiter and retries, the tools, memory and the compactor. */
export interface SocietyEnvironment {
  readonly bus: EventBus;
  readonly model: ModelClient;
  readonly tools: ToolRegistry;
  readonly memory: RuntimeMemory;
  /** What the society and every agent in it are made with. */
  readonly deps: SocietyDeps;
}

/** Builds what every agent of one process shares, the same way for an owner's runtime and a node. */
export function societyEnvironment(options: EnvironmentOptions, config: RuntimeConfig, journal: Journal): SocietyEnvironment {
  const { clock, ids, logger, inspect, redactor, memorySettings } = options;
  // Every call of every agent takes a slot of one limiter; retries wait outside it, not holding a slot.
  const limiter = new ModelCallLimiter({ maxConcurrent: config.maxConcurrentModelCalls, maxQueued: config.maxQueuedModelCalls });
  const base = options.model ?? new OfflineModel();
  const wrapped = (given: ModelClient): ModelClient => {
    const chosen = limitedModel(given, limiter);
    return options.retry === false ? chosen : new RetryingModel(chosen, { ...defaultRetryPolicy, ...options.retry }, { clock, logger });
  };
  const model = wrapped(base);
  const models = new Map(Object.entries(options.models ?? {}).map(([name, given]) => [name, wrapped(given)]));
  const bus = options.bus ?? new EventBus({ clock });
  const tools = new ToolRegistry().register(...metaTools, ...(options.tools ?? []));
  const memory = new RuntimeMemory({
    bus,
    clock,
    logger,
    store: journal.memoryStore,
    settings: memorySettings,
    // Compaction never waits behind turns for a slot: with none free, its extractive helpers write.
    model: unqueuedModel(base, limiter),
    config,
    inspect,
    forgetRetired: (max, erase) => journal.forgetRetired(max, erase),
  });
  // Each termination recorded counts towards the next check of `terminatedAgentsKept`.
  const recording: Journal = {
    ...journal,
    terminated: async (termination) => {
      await journal.terminated(termination);
      memory.retention.terminated();
    },
  };
  return {
    bus,
    model,
    tools,
    memory,
    deps: { bus, clock, ids, logger, model, models, tools, config, inspect, journal: recording, redactor, memory: memory.hub, memorySettings },
  };
}
