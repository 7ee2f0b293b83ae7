import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { randomIds } from '../ids.js';
import { societyName } from './natsArguments.js';
import type { NodeIo } from './nodeProcess.js';
import { otelFlags, otelOptions } from './traceExport.js';

/** The default interval of a node's announcements (`--heartbeat`). */
const defaultHeartbeatSeconds = 5;

/** `--roles a,b`: the names, each checked as a node announces it. */
function roleList(value: string): string[] {
  return value.split(',').map((role) => role.trim());
}

function metricsPort(value: string): number {
  const parsed = Number(value);
  if (value.trim() === '' || !Number.isInteger(parsed) || parsed < 0 || parsed > 65_535) {
    throw new InvalidArgumentError(`--metrics-port must be a port number (0 to 65535; 0: any free port), got "${value}"`);
  }
  return parsed;
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
  durableMailboxes?: boolean;
  otel?: boolean;
  otelContent?: boolean;
  metricsPort?: number;
  metricsHost: string;
}

export function registerNodeCommand(program: Command, io: NodeIo): void {
  const node = program
    .command('node')
    .description('host agents of the roles given for a society on NATS, announcing itself to its owner (troupe serve --nats) until SIGINT or SIGTERM')
    .requiredOption('--nats <url>', 'the NATS server the society lives on (nats://host:port)')
    .option('--society <name>', 'the society to join', societyName, 'default')
    .requiredOption('--roles <roles>', 'comma-separated names of the roles this node hosts', roleList)
    .option('--name <id>', "this node's id on the bus (default: node-<random>)")
    .option('--heartbeat <seconds>', 'how often the node announces itself to the owner', heartbeatSeconds, defaultHeartbeatSeconds)
    .option('--durable-mailboxes', "read the agents' Tasks from JetStream mailboxes (the owner's --durable-mailboxes)")
    .option('--metrics-port <port>', "serve the node's Prometheus metrics at GET /metrics on this port (TROUPE_TOKEN, when set, is required)", metricsPort)
    .option('--metrics-host <host>', 'interface the metrics endpoint binds (beyond loopback, set TROUPE_TOKEN)', '127.0.0.1');
  for (const option of otelOptions()) node.addOption(option);
  node.action(async (flags: NodeFlags) => {
    // Loaded when the command runs: the node's runtime and NATS client are not `troupe --help`'s to load.
    const [{ NodeAnnouncementSchema }, { nodeCommand }] = await Promise.all([import('../bus/nodeAnnouncement.js'), import('./nodeProcess.js')]);
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
    const durableMailboxes = flags.durableMailboxes === true;
    const metrics = flags.metricsPort === undefined ? {} : { metrics: { port: flags.metricsPort, host: flags.metricsHost } };
    process.exitCode = await nodeCommand(
      { nats: flags.nats, society: flags.society, durableMailboxes, announcement: checked.data, ...metrics, ...otelFlags(flags) },
      io,
    );
  });
}
