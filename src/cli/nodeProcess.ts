import { readCommandSettings } from './commandSettings.js';
import { EventBus, NodeActions, type NodeAnnouncement, connectNatsTransport, ownerAgentId } from '../bus/index.js';
import { type Clock, type TimerHandle, systemClock } from '../clock.js';
import { describeError } from '../errors.js';
import { randomIds } from '../ids.js';
import type { Logger } from '../logger.js';
import { NodeHost } from '../runtime/index.js';
import { createTask, redactingLogger } from '../task/index.js';
import { type CliIo } from './cliIo.js';
import { readDurableMailboxes, readNatsLogin, readToken } from './environment.js';
import { ExitCode, exitCodeOf } from './exitCodes.js';
import { natsUrlSecrets } from './natsArguments.js';
import { createServeLogger } from './serveLogger.js';
import { onStopSignals } from './stopSignals.js';
import { type OtelFlags, type TraceExport, openTraceExport } from './traceExport.js';
import { type MetricsServer, serveMetrics } from '../server/metricsServer.js';
import { isLoopback } from '../server/auth.js';

export interface NodeOptions extends OtelFlags {
  readonly nats: string;
  readonly society: string;
  /** `--durable-mailboxes`: read agents' Tasks from JetStream, as the owner placing them asks. */
  readonly durableMailboxes?: boolean;
  /** What the node says of itself: its id, the roles it hosts, how often it says so. */
  readonly announcement: NodeAnnouncement;
  /** `--metrics-port`, `--metrics-host`: where the node serves its Prometheus metrics; none without them. */
  readonly metrics?: { readonly port: number; readonly host: string };
}

/** `node` waits on signals to stop. */
export type NodeIo = CliIo & Required<Pick<CliIo, 'signals'>>;

/**
 * `troupe node`: a worker process of a society on NATS. It joins the society's bus and announces
 * itself to the owner (`nodes.announce` to `owner`: its id and roles) at once and every heartbeat
 * interval, until SIGINT or SIGTERM; then it says `nodes.leave`, flushes and exits 0.
 */
export async function nodeCommand(options: NodeOptions, io: NodeIo, clock: Clock = systemClock): Promise<ExitCode> {
  const read = readCommandSettings({ memory: true }, io, 'info', natsUrlSecrets(options.nats));
  if (typeof read === 'number') return read;
  const { settings, secrets, redactor } = read;
  const logger: Logger = redactingLogger(createServeLogger(settings.logLevel, io.stderr), redactor);
  const { announcement } = options;
  let bus: EventBus | undefined;
  let transport: Awaited<ReturnType<typeof connectNatsTransport>>;
  let host: NodeHost;
  let traces: TraceExport | undefined;
  let metrics: MetricsServer | undefined;
  let made: NodeHost | undefined;
  try {
    traces = await openTraceExport(options, io.env, 'troupe node');
    const login = readNatsLogin(io.env);
    transport = await connectNatsTransport({
      ...login,
      servers: options.nats,
      society: options.society,
      logger,
      name: `troupe node ${announcement.node}`,
      ...(options.durableMailboxes === true ? { durableMailboxes: readDurableMailboxes(io.env) } : {}),
    });
    bus = new EventBus({ transport, logger });
    const { node, roles } = announcement;
    const tracing = traces === undefined ? {} : { tracing: traces.tracing };
    made = host = new NodeHost({ ...settings.limits, bus, node, roles, model: settings.model, memory: settings.memory, logger, secrets, ...tracing });
    metrics = options.metrics === undefined ? undefined : await nodeMetrics(host, options.metrics, readToken(io.env), logger);
  } catch (error) {
    await made?.close();
    await bus?.close();
    await traces?.close();
    logger.error({ error: describeError(error) }, 'the node could not start');
    return exitCodeOf(error);
  }
  const say = (action: string): void =>
    bus.publish(createTask({ from: announcement.node, to: ownerAgentId, action, parameters: { ...announcement } }, { ids: randomIds, clock }));
  // Listening before the first announcement: whoever hears the node may stop it at once.
  const stopped = new Promise<string>((resolve) => {
    const stopListening = onStopSignals(io.signals, (received) => {
      stopListening();
      resolve(received);
    });
  });
  let timer: TimerHandle | undefined;
  const heartbeat = (): void => {
    say(NodeActions.announce);
    timer = clock.setTimeout(heartbeat, announcement.heartbeatMs);
  };
  heartbeat();
  logger.info({ nats: options.nats, society: options.society, model: settings.model.name, ...announcement }, 'node started');
  const signal = await stopped;
  if (timer !== undefined) clock.clearTimeout(timer);
  // Its agents stop first (their work in progress answered canceled), then the owner hears it leave.
  await metrics?.close();
  const hosted = host.hosted().length;
  await host.close();
  say(NodeActions.leave);
  await transport.flush();
  await bus.close();
  await traces?.close();
  logger.info({ signal, node: announcement.node, stoppedAgents: hosted }, 'troupe node stopped');
  return ExitCode.ok;
}

/** The node's `/metrics` endpoint (`--metrics-port`), said in the log; a warning when it is bound beyond loopback without a token. */
async function nodeMetrics(host: NodeHost, at: { port: number; host: string }, token: string | undefined, logger: Logger): Promise<MetricsServer> {
  const server = await serveMetrics(host, { ...at, token });
  logger.info({ url: `${server.url}/metrics` }, 'serving metrics');
  if (token === undefined && !isLoopback(at.host)) logger.warn({ host: at.host }, 'the metrics endpoint is bound beyond loopback without TROUPE_TOKEN');
  return server;
}
