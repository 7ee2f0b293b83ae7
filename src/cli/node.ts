import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { EventBus, NodeActions, type NodeAnnouncement, NodeAnnouncementSchema, connectNatsTransport, ownerAgentId } from '../bus/index.js';
import { type Clock, type TimerHandle, systemClock } from '../clock.js';
import { describeError } from '../errors.js';
import { randomIds } from '../ids.js';
import type { Logger } from '../logger.js';
import { NodeHost } from '../runtime/index.js';
import { Redactor, createTask, redactingLogger } from '../task/index.js';
import { type CliIo, reportFailure } from './cliIo.js';
import { type RuntimeSettings, readNatsLogin, readRuntimeSettings, readSecrets } from './environment.js';
import { ExitCode, exitCodeOf } from './exitCodes.js';
import { natsUrlSecrets, societyName } from './natsArguments.js';
import { createServeLogger } from './serveLogger.js';
import { onStopSignals } from './stopSignals.js';

interface NodeOptions {
  readonly nats: string;
  readonly society: string;
  /** What the node says of itself: its id, the roles it hosts, how often it says so. */
  readonly announcement: NodeAnnouncement;
}

/** `node` waits on signals to stop. */
export type NodeIo = CliIo & Required<Pick<CliIo, 'signals'>>;

/** The default interval of a node's announcements (`--heartbeat`). */
const defaultHeartbeatSeconds = 5;

/**
 * `troupe node`: a worker process of a society on NATS. It joins the society's bus and announces
 * itself to the owner (`nodes.announce` to `owner`: its id and roles) at once and every heartbeat
 * interval, until SIGINT or SIGTERM; then it says `nodes.leave`, flushes and exits 0.
 */
async function nodeCommand(options: NodeOptions, io: NodeIo, clock: Clock = systemClock): Promise<ExitCode> {
  let settings: RuntimeSettings;
  try {
    settings = readRuntimeSettings({ memory: true }, io.env, 'info');
  } catch (error) {
    return reportFailure(io, error, 'bad settings in the environment');
  }
  const secrets = [...readSecrets(io.env), ...natsUrlSecrets(options.nats)];
  const logger: Logger = redactingLogger(createServeLogger(settings.logLevel, io.stderr), new Redactor(secrets));
  const { announcement } = options;
  let bus: EventBus | undefined;
  let transport: Awaited<ReturnType<typeof connectNatsTransport>>;
  let host: NodeHost;
  try {
    const login = readNatsLogin(io.env);
    transport = await connectNatsTransport({ ...login, servers: options.nats, society: options.society, logger, name: `troupe node ${announcement.node}` });
    bus = new EventBus({ transport, logger });
    const { node, roles } = announcement;
    host = new NodeHost({ ...settings.limits, bus, node, roles, model: settings.model, memory: settings.memory, logger, secrets });
  } catch (error) {
    await bus?.close();
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
  const hosted = host.hosted().length;
  await host.close();
  say(NodeActions.leave);
  await transport.flush();
  await bus.close();
  logger.info({ signal, node: announcement.node, stoppedAgents: hosted }, 'troupe node stopped');
  return ExitCode.ok;
}

/** `--roles a,b`: the names, each checked as a node announces it. */
function roleList(value: string): string[] {
  return value.split(',').map((role) => role.trim());
}

function heartbeatSeconds(value: string): number {
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0) throw new InvalidArgumentError(`--heartbeat must be a positive number of seconds, got "${value}"`);
  return parsed;
}

interface NodeFlags {
  nats: string;
  society: string;
  roles: string[];
  name?: string;
  heartbeat: number;
}

export function registerNodeCommand(program: Command, io: NodeIo): void {
  const node = program
    .command('node')
    .description('host agents of the roles given for a society on NATS, announcing itself to its owner (troupe serve --nats) until SIGINT or SIGTERM')
    .requiredOption('--nats <url>', 'the NATS server the society lives on (nats://host:port)')
    .option('--society <name>', 'the society to join', societyName, 'default')
    .requiredOption('--roles <roles>', 'comma-separated names of the roles this node hosts', roleList)
    .option('--name <id>', "this node's id on the bus (default: node-<random>)")
    .option('--heartbeat <seconds>', 'how often the node announces itself to the owner', heartbeatSeconds, defaultHeartbeatSeconds);
  node.action(async (flags: NodeFlags) => {
    const checked = NodeAnnouncementSchema.safeParse({
      node: flags.name ?? randomIds.agent('node'),
      roles: flags.roles,
      heartbeatMs: Math.round(flags.heartbeat * 1000),
      // A new one each time the process starts: the owner tells a restarted node from one that was only silent.
      incarnation: randomIds.agent('boot'),
    });
    if (!checked.success) {
      const issue = checked.error.issues[0];
      const option = issue?.path[0] === 'node' ? '--name' : issue?.path[0] === 'heartbeatMs' ? '--heartbeat' : '--roles';
      node.error(`error: ${option}: ${issue?.message ?? 'invalid'}`);
      return;
    }
    process.exitCode = await nodeCommand({ nats: flags.nats, society: flags.society, announcement: checked.data }, io);
  });
}
