import type { InspectionEvent } from 'xstate';
import { EventBus } from '../../bus/index.js';
import type { Clock } from '../../clock.js';
import type { IdGenerator } from '../../ids.js';
import type { Logger } from '../../logger.js';
import { type ModelCallSink, type ModelClient, OfflineModel, type RetryPolicy, RetryingModel, defaultRetryPolicy, observedModel } from '../../llm/index.js';
import { type Skill, SkillHub, type SkillLimits, SkillLimitsSchema, SkillRegistry, skillTools } from '../../skills/index.js';
import { type Redactor, finalStatuses } from '../../task/index.js';
import { ArtifactStore } from '../../org/artifacts/artifactStore.js';
import { ValidationError, describeError } from '../../errors.js';
import { ApprovalDesk } from '../approvals/approvalDesk.js';
import { type RemoteRole, type Tool, ToolRegistry, metaTools, remoteRolesByName } from '../../tools/index.js';
import type { RunTap } from '../../replay/index.js';
import type { RuntimeConfig } from '../config/config.js';
import { type Guardrail, guardrailInterceptors } from '../agent/interceptors/guardrail.js';
import type { Interceptor } from '../agent/interceptors/interceptor.js';
import { type TracingOptions, tracingOf } from '../agent/tracing.js';
import { InterceptorChain } from '../agent/interceptors/interceptorChain.js';
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
  /** Skills loaded (checked) and their bounds; none when absent. */
  readonly loadedSkills?: { readonly loaded: readonly Skill[]; readonly limits: SkillLimits } | undefined;
  /** The interceptors every turn runs (checked); none when absent. */
  readonly interceptors?: readonly Interceptor[] | undefined;
  /** The guardrails every turn runs (checked), after the interceptors; none when absent. */
  readonly guardrails?: readonly Guardrail[] | undefined;
  /** A recording or a replay of the run: around the model agents see and every tool's execution. */
  readonly tap?: RunTap | undefined;
  /** Where each model call is reported as it ends (the runtime's measurements); nowhere when absent. */
  readonly modelCalls?: ModelCallSink | undefined;
  /** How turns are traced (checked); through the global tracer provider, without content, when absent. */
  readonly tracing?: TracingOptions | undefined;
  /** Agents outside the society `delegate_task` gives work to by role; checked here. */
  readonly remoteRoles?: readonly RemoteRole[] | undefined;
}

/** A society's shared parts: the bus, the model behind the call limiter and retries, the tools, memory and the compactor. */
export interface SocietyEnvironment {
  readonly bus: EventBus;
  readonly model: ModelClient;
  readonly tools: ToolRegistry;
  readonly memory: RuntimeMemory;
  readonly skills: SkillHub;
  /** The artifacts tools produced, in the data dir or in memory. */
  readonly artifacts: ArtifactStore;
  /** The tool calls waiting for a person's approval, and the decisions on them. */
  readonly approvals: ApprovalDesk;
  /** What the society and every agent in it are made with. */
  readonly deps: SocietyDeps;
  /** The one limiter every model call of the society takes a slot of: read for its calls running and queued. */
  readonly limiter: Pick<ModelCallLimiter, 'running' | 'queued'>;
}

/** Builds what every agent of one process shares, the same way for an owner's runtime and a node. */
export function societyEnvironment(options: EnvironmentOptions, config: RuntimeConfig, journal: Journal): SocietyEnvironment {
  const { clock, ids, logger, inspect, redactor, memorySettings } = options;
  // Every call of every agent takes a slot of one limiter; retries wait outside it, not holding a slot.
  const limiter = new ModelCallLimiter({ maxConcurrent: config.maxConcurrentModelCalls, maxQueued: config.maxQueuedModelCalls });
  const { tap, modelCalls } = options;
  // Each attempt is observed (metrics and its span), inside the limiter: its time is the provider's, not the wait for a slot.
  const measured = (given: ModelClient): ModelClient => observedModel(given, modelCalls);
  const base = measured(options.model ?? new OfflineModel());
  const tapped = (given: ModelClient): ModelClient => (tap === undefined ? given : tap.model(given));
  const wrapped = (given: ModelClient): ModelClient => {
    const chosen = limitedModel(given, limiter);
    return tapped(options.retry === false ? chosen : new RetryingModel(chosen, { ...defaultRetryPolicy, ...options.retry }, { clock, logger }));
  };
  const model = wrapped(base);
  const models = new Map(Object.entries(options.models ?? {}).map(([name, given]) => [name, wrapped(measured(given))]));
  const bus = options.bus ?? new EventBus({ clock });
  const tools = new ToolRegistry().register(...metaTools, ...(options.tools ?? []));
  if (tap !== undefined) tools.executeThrough(tap.execution);
  const skills = skillHub(options, config, tools, bus, journal);
  const memory = new RuntimeMemory({
    bus,
    clock,
    ids,
    logger,
    store: journal.memoryStore,
    settings: memorySettings,
    // Compaction never waits behind turns for a slot: with none free, its extractive helpers write.
    model: tapped(unqueuedModel(base, limiter)),
    config,
    inspect,
    forgetRetired: (max, erase) => journal.forgetRetired(max, erase),
  });
  const artifacts = taskArtifacts(bus, journal, config, logger, clock);
  const approvals = approvalDesk(bus, journal, config, tools, options);
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
    skills,
    artifacts,
    approvals,
    limiter,
    deps: {
      bus,
      clock,
      ids,
      logger,
      model,
      models,
      tools,
      config,
      inspect,
      journal: recording,
      redactor,
      memory: memory.hub,
      memorySettings,
      skills,
      artifacts,
      interceptors: turnChain(options, config),
      tracing: tracingOf(options.tracing, redactor),
      approvals,
      remoteRoles: remoteRolesByName(options.remoteRoles),
      ...(tap === undefined ? {} : { tape: tap.tape }),
    },
  };
}

/**
 * The society's skills: the registry with every skill loaded, the tools they bring and, when there
 * is any skill, `use_skill` and `read_skill_file` in the shared tool registry.
 */
function skillHub(options: EnvironmentOptions, config: RuntimeConfig, tools: ToolRegistry, bus: EventBus, journal: Journal): SkillHub {
  const { clock, ids, memorySettings } = options;
  const limits = options.loadedSkills?.limits ?? SkillLimitsSchema.parse({});
  const loaded = options.loadedSkills?.loaded ?? [];
  const registry = new SkillRegistry({ maxSkills: limits.maxSkills, embedder: memorySettings.embedder }).add(...loaded);
  const hub = new SkillHub({
    registry,
    bus,
    ids,
    clock,
    limits,
    sessionsPerAgent: config.sessionsInMemoryPerAgent,
    changed: (agentId, sessionId, active) => journal.activeSkills(agentId, sessionId, active),
  });
  // A tool the society was given itself stays in view; one only skills bring shows while one of them is active.
  const given = new Set(tools.names());
  for (const skill of loaded) {
    for (const tool of skill.tools) {
      if (tools.get(tool.name) !== tool) tools.register(tool);
      if (!given.has(tool.name)) hub.gateTool(tool.name, skill.name);
    }
  }
  if (loaded.length > 0) tools.register(...skillTools(hub, { registry: tools, defaultTimeoutMs: config.toolTimeoutMs, clock }));
  return hub;
}

/** The society's artifact store, told of every Task that reaches a final status (its artifacts may then be evicted). */
function taskArtifacts(bus: EventBus, journal: Journal, config: RuntimeConfig, logger: Logger, clock: Clock): ArtifactStore {
  const artifacts = new ArtifactStore(journal.artifactTable(), { limits: config, logger, clock, staleAfterMs: config.maxTaskMs });
  bus.subscribe(
    { pattern: '*' },
    (task) => {
      if (!finalStatuses.has(task.status)) return;
      artifacts
        .taskEnded(task)
        .catch((error: unknown) => logger.error({ taskId: task.id, error: describeError(error) }, 'artifact store: marking a Task ended failed'));
    },
    'artifacts',
  );
  return artifacts;
}

/**
 * The society's approval desk, with what was kept before a restart; an approval is over once its
 * Task reaches a final status (a cancelled Task's calls never run). An edit is checked against
 * the tool's schema.
 */
function approvalDesk(bus: EventBus, journal: Journal, config: RuntimeConfig, tools: ToolRegistry, options: EnvironmentOptions): ApprovalDesk {
  const desk = new ApprovalDesk({
    clock: options.clock,
    logger: options.logger,
    journal,
    limits: config,
    tape: options.tap?.tape,
    checkEdit: (approval, args) => {
      const parsed = tools.get(approval.tool)?.parameters.safeParse(args);
      if (parsed !== undefined && !parsed.success) {
        const issue = parsed.error.issues[0];
        throw new ValidationError(['arguments', ...(issue?.path ?? [])].join('.'), `${issue?.message ?? 'invalid'} (tool ${approval.tool})`);
      }
      return JSON.stringify(args);
    },
  });
  desk.restore();
  bus.subscribe(
    { pattern: '*' },
    (task) => {
      if (finalStatuses.has(task.status)) desk.taskEnded(task.id);
    },
    'approvals',
  );
  return desk;
}

/** The interceptors, then the guardrails, whose stops trip: they check what would really go out. */
function turnChain(options: EnvironmentOptions, config: RuntimeConfig): InterceptorChain {
  const guarding = guardrailInterceptors(options.guardrails ?? []);
  const { clock, logger } = options;
  return new InterceptorChain([...(options.interceptors ?? []), ...guarding], {
    clock,
    logger,
    timeoutMs: config.interceptorTimeoutMs,
    guardrails: new Set(guarding),
  });
}
