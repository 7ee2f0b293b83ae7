import { type Guardrail, GuardrailsSchema } from '../agent/interceptors/guardrail.js';
import { type Interceptor, InterceptorsSchema } from '../agent/interceptors/interceptor.js';
import { type TracingOptions, TracingOptionsSchema } from '../agent/tracing.js';
import type { Subscription } from 'rxjs';
import { type EventBus, ownerAgentId } from '../../bus/index.js';
import { type Clock, systemClock } from '../../clock.js';
import { TroupeError, describeError, errorCodeOf } from '../../errors.js';
import { type IdGenerator, randomIds } from '../../ids.js';
import { type Logger, silentLogger } from '../../logger.js';
import type { ModelClient, RetryPolicy } from '../../llm/index.js';
import { Redactor, type Task, asksForWork, createTask, parseOrThrow, replyTo } from '../../task/index.js';
import { type Tool, serveTools } from '../../tools/index.js';
import { type RuntimeConfigInput, RuntimeConfigSchema } from '../config/config.js';
import { memoryJournal } from '../journal/journal.js';
import { type MemoryOptions, memorySettings } from '../memory/memoryOptions.js';
import type { RuntimeMemory } from '../memory/runtimeMemory.js';
import type { ModelUsage } from '../agent/index.js';
import { Society } from '../society/society.js';
import { societyEnvironment } from '../society/societyEnvironment.js';
import { ForwardingPort } from './forwardingPort.js';
import { type NodeHostLimits, NodeHostLimitsSchema } from './nodeHostLimits.js';
import {
  HostAgentSchema,
  OrgActions,
  PlacementActions,
  RemoteDecisionSchema,
  type StopHosted,
  StopHostedSchema,
  everyNode,
} from '../society/remote/nodeProtocol.js';
import type { ApprovalDesk } from '../approvals/approvalDesk.js';
import { type Measurement, Measurements } from '../society/measurements.js';
import { type GaugeSources, type RuntimeGauges, runtimeGauges } from '../society/runtimeGauges.js';
import type { Observable } from 'rxjs';

export interface NodeHostOptions extends RuntimeConfigInput, NodeHostLimits {
  /** The society's bus, on NATS: where the owner places agents and every Task travels. */
  readonly bus: EventBus;
  /** This node's id on the bus (what it announces itself as). */
  readonly node: string;
  /** The roles it hosts: a placement of any other is refused. */
  readonly roles: readonly string[];
  readonly model?: ModelClient;
  readonly retry?: Partial<RetryPolicy> | false;
  readonly tools?: readonly Tool[];
  readonly memory?: MemoryOptions;
  readonly logger?: Logger;
  readonly clock?: Clock;
  readonly ids?: IdGenerator;
  readonly secrets?: readonly string[];
  /** Tools this node serves to agents anywhere in the society (`tools.call` to the node's id; see `remoteTool`). */
  readonly servedTools?: readonly Tool[];
  /** The interceptors its agents' turns run (as `createRuntime({ interceptors })`): hooks are code, so each process is given its own. */
  readonly interceptors?: readonly Interceptor[];
  /** The guardrails its agents' turns run (as `createRuntime({ guardrails })`). */
  readonly guardrails?: readonly Guardrail[];
  /** How its agents' turns are traced (as `createRuntime({ tracing })`): a node's spans join the owner's traces through the Tasks it is sent. */
  readonly tracing?: TracingOptions;
}

/**
 * The agents one node of a society hosts: each placed here by the owner (`nodes.spawn`), started
 * as in any runtime (its own model calls, tools, memory and session lanes), stopped when the
 * owner says (`nodes.terminate`). The organisation is the owner's: the node keeps no store, and
 * its agents' spawns and terminations are requests to the owner (see `ForwardingPort`).
 */
export class NodeHost {
  readonly #society: Society;
  readonly #memory: RuntimeMemory;
  readonly #serving: Subscription[];
  readonly #roles: ReadonlySet<string>;
  readonly #logger: Logger;
  readonly #clock: Clock;
  readonly #bus: EventBus;
  /** Its agents' calls waiting for a person: the owner lists them and relays the decisions here. */
  readonly #approvals: ApprovalDesk;
  /** Agents whose durable mailboxes this node reads, each with how to let go of it. */
  readonly #held = new Map<string, () => void>();
  /** Its model calls as they end, for its metrics (`troupe node --metrics-port`). */
  readonly #measurements = new Measurements();
  readonly #gauges: GaugeSources;

  constructor(options: NodeHostOptions) {
    const {
      bus,
      node,
      roles,
      model,
      retry,
      tools,
      memory,
      orgRequestTimeoutMs,
      secrets,
      servedTools,
      interceptors,
      guardrails,
      tracing,
      maxConcurrentToolCalls,
      logger: _l,
      clock: _c,
      ids: _i,
      ...settings
    } = options;
    const config = parseOrThrow(RuntimeConfigSchema, settings);
    parseOrThrow(InterceptorsSchema, interceptors ?? [], 'interceptors');
    parseOrThrow(GuardrailsSchema, guardrails ?? [], 'guardrails');
    parseOrThrow(TracingOptionsSchema, tracing ?? {}, 'tracing');
    const limits = parseOrThrow(NodeHostLimitsSchema, { orgRequestTimeoutMs, maxConcurrentToolCalls });
    const clock = options.clock ?? systemClock;
    const logger = options.logger ?? silentLogger;
    const environment = societyEnvironment(
      {
        bus,
        model,
        retry,
        tools,
        clock,
        logger,
        ids: options.ids ?? randomIds,
        redactor: new Redactor(secrets ?? []),
        memorySettings: memorySettings(memory),
        interceptors,
        guardrails,
        tracing,
        modelCalls: this.#measurements.modelCalls,
      },
      config,
      memoryJournal,
    );
    this.#memory = environment.memory;
    this.#approvals = environment.approvals;
    let port: ForwardingPort | undefined;
    this.#society = new Society(environment.deps, { portFor: (society) => (port = new ForwardingPort(society, limits.orgRequestTimeoutMs)) });
    this.#gauges = { society: this.#society, limiter: environment.limiter, approvals: this.#approvals, memory: environment.memory.hub };
    this.#roles = new Set(roles);
    this.#logger = logger;
    this.#clock = clock;
    this.#bus = bus;
    this.#serving = [
      bus.serve(node, (task) => this.#answer(task)),
      bus.subscribe({ to: everyNode }, (task) => this.#ownerStarted(task), 'owner restarts'),
      // Where a person decides is the owner's: it hears of each call waiting here, and of each decision.
      this.#approvals.events.subscribe(({ type, approval }) => {
        const notice = { from: approval.agentId, to: ownerAgentId, action: OrgActions.approval, parameters: { node, type, approval: { ...approval } } };
        bus.publish(createTask(notice, { ids: options.ids ?? randomIds, clock }));
      }),
    ];
    if (servedTools !== undefined && port !== undefined) {
      const served = { society: port, clock, logger, maxConcurrentCalls: limits.maxConcurrentToolCalls };
      this.#serving.push(serveTools(bus, node, servedTools, served));
    }
  }

  /** The agents running here. */
  hosted(): string[] {
    return this.#society.liveIds();
  }

  /** What the node is doing now, as `rt.gauges()` says it of a runtime: its hosted agents by state, their queues and lanes, its model calls, approvals and memory. */
  gauges(): RuntimeGauges {
    return runtimeGauges(this.#gauges);
  }

  /** Each model call of its agents as it ends (as `rt.measurements()`); nothing is timed while nobody subscribes. */
  measurements(): Observable<Measurement> {
    return this.#measurements.events;
  }

  /**
   * Stops every agent it hosts and closes their memory. Work in progress is answered `canceled`,
   * except an agent's with a durable mailbox: that work goes back to the mailbox, for the node
   * the owner moves the agent to. The bus is the caller's.
   */
  async close(): Promise<void> {
    for (const subscription of this.#serving) subscription.unsubscribe();
    const reason = 'its node is closing';
    await Promise.all([...this.#held.keys()].map((agentId) => this.#stopHosted({ agentId, by: ownerAgentId, reason, resumable: true })));
    await this.#society.stopAll();
    this.#society.close();
    this.#approvals.close();
    await this.#memory.close();
    this.#measurements.close();
  }

  async #answer(task: Task): Promise<Task | undefined> {
    if (task.status !== 'submitted') return undefined;
    try {
      if (task.action === PlacementActions.host) this.#host(task);
      else if (task.action === PlacementActions.decide) {
        const { id, decision } = parseOrThrow(RemoteDecisionSchema, task.parameters, 'parameters');
        return replyTo(task, { status: 'completed', result: { ...(await this.#approvals.decide(id, decision)) } }, this.#clock);
      } else if (task.action === PlacementActions.stop) {
        const usage = await this.#stopHosted(parseOrThrow(StopHostedSchema, task.parameters, 'parameters'));
        return replyTo(task, { status: 'completed', result: usage === undefined ? null : { usage: { ...usage } } }, this.#clock);
      } else return undefined;
      return replyTo(task, { status: 'completed' }, this.#clock);
    } catch (error) {
      this.#logger.warn({ from: task.from, action: task.action, error: describeError(error) }, 'refused a placement request');
      return replyTo(task, { status: 'failed', error: { code: errorCodeOf(error), message: describeError(error) } }, this.#clock);
    }
  }

  /**
   * A new owner process: what an earlier one placed here is its to restore now, so those agents
   * stop as for a restart, without cancelling their work or announcing it (it is in the owner's
   * store). Running them on would make two copies of each, one here and one at the owner.
   */
  async #ownerStarted(task: Task): Promise<void> {
    if (task.action !== PlacementActions.reset || task.from !== ownerAgentId) return;
    const hosted = this.#society.liveIds();
    if (hosted.length === 0) return;
    this.#logger.warn({ agents: hosted.length }, 'the owner restarted: stopping the agents it had placed here');
    const reason = 'the owner restarted';
    await Promise.all(hosted.map((agentId) => this.#stopHosted({ agentId, by: ownerAgentId, reason, resumable: true })));
  }

  /** Stops a hosted agent, then lets go of its durable mailbox: what it did not answer goes back there. */
  async #stopHosted(stop: StopHosted): Promise<ModelUsage | undefined> {
    try {
      return await this.#society.stopHosted(stop);
    } finally {
      this.#held.get(stop.agentId)?.();
      this.#held.delete(stop.agentId);
    }
  }

  #host(task: Task): void {
    const placement = parseOrThrow(HostAgentSchema, task.parameters, 'parameters');
    if (!this.#roles.has(placement.role.name)) {
      throw new TroupeError('invalid_input', `this node does not host role "${placement.role.name}" (it hosts ${[...this.#roles].join(', ')})`);
    }
    // Held before the agent subscribes to its Tasks, so its bus reads them from the mailbox.
    const release = placement.durable === true ? this.#holdMailbox(placement.agent.id) : undefined;
    try {
      this.#society.host(placement);
    } catch (error) {
      release?.();
      throw error;
    }
    if (release !== undefined) this.#held.set(placement.agent.id, release);
    this.#logger.info({ agentId: placement.agent.id, role: placement.role.name, parent: placement.agent.parentAgentId }, 'hosting an agent');
  }

  #holdMailbox(agentId: string): () => void {
    const { mailboxes } = this.#bus.transport;
    if (mailboxes === undefined) {
      throw new TroupeError(
        'invalid_input',
        `agent "${agentId}" has a durable mailbox, and this node's transport keeps none (connect it with durableMailboxes: troupe node --durable-mailboxes)`,
      );
    }
    return mailboxes.hold(agentId, asksForWork);
  }
}
