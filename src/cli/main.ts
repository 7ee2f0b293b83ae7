#!/usr/bin/env node
// Each command's implementation is imported when it runs: `troupe --help`, `--version` and a
// refused command line load none of the runtime, its store, the HTTP server or the NATS client.
import '../checkZodPeer.js';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { Redactor } from '../task/index.js';
import { redactedIo, reportFailure } from './cliIo.js';
import { readSecrets } from './environment.js';
import type { InspectFlags } from './inspector.js';
import type { ServeIo } from './serve.js';
import { integerAtLeast } from './integerArgument.js';
import { ExitCode } from './exitCodes.js';
import { exitWhenWritten } from './exitWhenWritten.js';
import { registerGraphCommand } from './graphCommand.js';
import { registerMemoryCommand } from './memoryCommand.js';
import { registerMessagesCommand } from './messagesView.js';
import { registerArtifactCommand } from './artifactCommand.js';
import { registerOrgCommand } from './orgView.js';
import { troupeVersion } from '../version.js';
import { TaskIdSchema } from '../task/index.js';
import { societyName } from './natsArguments.js';
import { registerNodeCommand } from './node.js';
import { registerAgentsCommand } from './agentsCommand.js';
import { registerToolsCommand } from './toolsCommand.js';
import { registerSkillsCommand } from './skillsCommand.js';
import { registerApprovalsCommands } from './approvalsCommand.js';
import { otelFlags, otelOptions } from './traceExport.js';

function positiveNumber(name: string) {
  return (value: string): number => {
    const parsed = Number(value);
    if (!Number.isFinite(parsed) || parsed <= 0) throw new InvalidArgumentError(`${name} must be a positive number, got "${value}"`);
    return parsed;
  };
}

function nonNegativeNumber(name: string) {
  return (value: string): number => {
    const parsed = Number(value);
    if (!Number.isFinite(parsed) || parsed < 0) throw new InvalidArgumentError(`${name} must be a number ≥ 0, got "${value}"`);
    return parsed;
  };
}

function port(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1 || parsed > 65_535) throw new InvalidArgumentError(`port must be an integer 1–65535, got "${value}"`);
  return parsed;
}

/** A session id, as the Task schema takes it, so a bad one is refused before anything starts. */
function sessionId(value: string): string {
  const checked = TaskIdSchema.safeParse(value);
  if (!checked.success) throw new InvalidArgumentError(`--session must be 1–128 letters, digits, "_" or "-", got "${value}"`);
  return checked.data;
}

/** A port for `serve`, where 0 asks the system for any free one. */
function portOrAny(value: string): number {
  return value.trim() === '0' ? 0 : port(value);
}

// The only place the process is read: every command gets this and reads its settings from `env`.
const processIo: ServeIo = {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  signals: process,
  exit: (code) => process.exit(code),
};

/** The process's io, redacting all it prints of the secrets the environment configures; exits 2 on a secret that cannot be hidden. */
function secretKeepingIo(): Promise<ServeIo> {
  try {
    return Promise.resolve(redactedIo(processIo, new Redactor(readSecrets(process.env))));
  } catch (error) {
    return exitWhenWritten(reportFailure(processIo, error, 'bad settings in the environment'));
  }
}

const io = await secretKeepingIo();

/** `--mcp <file>`, for `run`, `serve` and `mcp` alike. */
function mcpOption(): Option {
  return new Option('--mcp <file>', 'give agents the tools of the MCP servers in this mcpServers JSON file (default: $TROUPE_MCP_CONFIG)');
}

/** `--data-dir`, `--memory` and `--strict-store`; memory only, there is no store to be strict about. */
function dataDirOptions(): Option[] {
  return [
    new Option('--data-dir <dir>', 'organisation store to write and restore (default: TROUPE_DATA_DIR, else ./.troupe)'),
    new Option('--memory', 'keep the organisation in memory only').default(false).conflicts(['dataDir', 'strictStore']),
    new Option('--strict-store', 'refuse to start (exit 2) on a damaged store instead of moving it aside and starting empty').default(false),
  ];
}

/** `--inspect`, `--inspect-port` and `--inspect-ws`, for `run` and `serve` alike. */
function inspectOptions(): Option[] {
  return [
    new Option('--inspect', 'serve the Stately inspector relay on 127.0.0.1 (port 8080, or --inspect-port) and stream every actor to it'),
    new Option('--inspect-port <port>', 'port of the inspector relay (implies --inspect)').argParser(port),
    new Option('--inspect-ws <url>', 'stream inspection events to an existing WebSocket inspector'),
  ];
}

interface InspectFlagsGiven {
  inspect?: true;
  inspectPort?: number;
  inspectWs?: string;
  otel?: boolean;
  otelContent?: boolean;
}

/** The inspector the flags ask for: a WebSocket URL, or the relay's port (8080 unless given). */
function inspectFlags(options: InspectFlagsGiven): InspectFlags {
  return {
    ...(options.inspectWs === undefined ? {} : { inspectUrl: options.inspectWs }),
    ...(options.inspect === undefined && options.inspectPort === undefined ? {} : { inspectPort: options.inspectPort ?? 8080 }),
  };
}

const program = new Command()
  .name('troupe')
  .description('An actor-model runtime for societies of LLM agents')
  .version(troupeVersion(), '-V, --version', 'print the version of troupe')
  .showHelpAfterError()
  // Commander's own output (help, version, refusals) goes out as the commands' does: redacted,
  // since a refusal quotes the argument it refused, and a secret may have been typed as one.
  .configureOutput({ writeOut: (text) => io.stdout.write(text), writeErr: (text) => io.stderr.write(text) })
  // Commander throws where it would exit, so its output is written before the process ends too.
  .exitOverride();

/** `--skills <folder>`, repeatable: skill folders the runtime loads besides those of TROUPE_SKILLS. */
function skillsOption(): Option {
  return new Option('--skills <folder>', 'load skills from this folder (a skill, or a folder of them); repeatable; also TROUPE_SKILLS').argParser(
    (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
  );
}

const run = program
  .command('run')
  .description('give the root agent one requirement, print each Task as the society works, exit when the user has the answer')
  .argument('<requirement>', 'what you want done')
  .option('-t, --timeout <seconds>', 'give up after this many seconds', positiveNumber('--timeout'), 300)
  .option('--session <id>', 'continue this session (with a data dir, the root remembers it); the run prints its session id', sessionId);
for (const option of [...inspectOptions(), ...otelOptions()]) run.addOption(option);
run
  .option('-v, --verbose', "also print the model's streamed text", false)
  .option('--json', 'print every Task as one JSON line (NDJSON) on stdout', false)
  .option('--no-status', 'do not draw the live status line')
  .option('--approve-all', "approve every tool call that needs a person's approval (else asked on the terminal; with none, rejected)", false)
  .option('--record <file>', 'record the run in this file (JSON lines), to run it again offline with troupe replay');
for (const option of dataDirOptions()) run.addOption(option);
run.addOption(skillsOption());
run.addOption(mcpOption());
run.action(
  async (
    requirement: string,
    options: InspectFlagsGiven & {
      timeout: number;
      session?: string;
      verbose: boolean;
      json: boolean;
      status: boolean;
      approveAll: boolean;
      dataDir?: string;
      memory: boolean;
      strictStore: boolean;
      skills?: string[];
      mcp?: string;
      record?: string;
    },
  ) => {
    const { runRequirement } = await import('./run.js');
    process.exitCode = await runRequirement(
      requirement,
      {
        timeoutSeconds: options.timeout,
        verbose: options.verbose,
        json: options.json,
        status: options.status,
        approveAll: options.approveAll,
        memory: options.memory,
        strictStore: options.strictStore,
        ...(options.skills === undefined ? {} : { skills: options.skills }),
        ...(options.dataDir === undefined ? {} : { dataDir: options.dataDir }),
        ...(options.session === undefined ? {} : { sessionId: options.session }),
        ...(options.mcp === undefined ? {} : { mcp: options.mcp }),
        ...(options.record === undefined ? {} : { record: options.record }),
        ...inspectFlags(options),
        ...otelFlags(options),
      },
      io,
    );
  },
);

program
  .command('replay')
  .description('run a recorded run (troupe run --record) again offline, printing each Task; exit 5 when it diverges from the recording')
  .argument('<file>', 'the recording')
  .option('-v, --verbose', "also print the model's streamed text", false)
  .option('--json', 'print every Task as one JSON line (NDJSON) on stdout', false)
  .action(async (file: string, options: { verbose: boolean; json: boolean }) => {
    const { replayRecording } = await import('./replayCommand.js');
    process.exitCode = await replayRecording(file, options, io);
  });

program
  .command('model-server')
  .description('serve the offline playbook over the OpenAI chat-completions protocol (for trying OPENAI_BASE_URL without a model)')
  .option('-p, --port <port>', 'port to listen on', port, 4010)
  .option('--host <host>', 'interface to bind', '127.0.0.1')
  .option('--chunk-delay <ms>', 'pause between streamed chunks', nonNegativeNumber('--chunk-delay'), 0)
  .action(async (options: { port: number; host: string; chunkDelay: number }) => {
    const { serveModel } = await import('./modelServer.js');
    process.exitCode = await serveModel({ port: options.port, host: options.host, chunkDelayMs: options.chunkDelay }, io);
  });

const serve = program
  .command('serve')
  .description('serve the HTTP API and a console (a line for root, "@agentId text" for an agent) until SIGINT or SIGTERM')
  .option('-p, --port <port>', 'port to listen on (0: any free port)', portOrAny, 3000)
  .option('--host <host>', 'interface to bind (beyond loopback, set TROUPE_TOKEN)', '127.0.0.1')
  .option('--drain-timeout <seconds>', 'on shutdown, how long turns in flight may finish', nonNegativeNumber('--drain-timeout'), 30)
  .option('--headers-timeout <seconds>', "time a client has to send a request's headers (then 408)", positiveNumber('--headers-timeout'), 10)
  .option('--request-timeout <seconds>', 'time a client has to send a whole request, headers and body (then 408)', positiveNumber('--request-timeout'), 30)
  .option('--cors <origins>', 'let browser pages on these origins call the API (comma-separated, or "*")', (value: string) =>
    value.split(',').map((origin) => origin.trim()),
  )
  .option('--no-console', 'do not read lines from stdin')
  .option('--nats <url>', "run the society's bus over this NATS server (nats://host:port), shared with every process on it")
  .option('--society <name>', 'the society to join on --nats (default: "default")', societyName)
  .option('--durable-mailboxes', "keep agents' Tasks on nodes in JetStream (nats-server -js), so a node's loss loses no work")
  .option('--a2a-max-tasks <n>', 'A2A tasks kept for GetTask, ListTasks and follow-ups (default 1000)', integerAtLeast('--a2a-max-tasks', 1))
  .option('--a2a-max-history <n>', "messages kept in each A2A task's history (default 20)", integerAtLeast('--a2a-max-history', 1))
  .option('--a2a-max-card-skills <n>', 'skills the A2A agent card lists (default 100)', integerAtLeast('--a2a-max-card-skills', 1));
for (const option of dataDirOptions()) serve.addOption(option);
serve.addOption(skillsOption());
serve.addOption(mcpOption());
// The relay lives as long as the service: it is inspectable while it runs.
for (const option of [...inspectOptions(), ...otelOptions()]) serve.addOption(option);
interface ServeFlags extends InspectFlagsGiven {
  cors?: string[];
  port: number;
  host: string;
  dataDir?: string;
  memory: boolean;
  strictStore: boolean;
  drainTimeout: number;
  headersTimeout: number;
  requestTimeout: number;
  console: boolean;
  nats?: string;
  society?: string;
  durableMailboxes?: boolean;
  skills?: string[];
  mcp?: string;
  a2aMaxTasks?: number;
  a2aMaxHistory?: number;
  a2aMaxCardSkills?: number;
}
serve.action(async (options: ServeFlags) => {
  if (options.society !== undefined && options.nats === undefined) serve.error('error: --society needs --nats <url>');
  if (options.durableMailboxes === true && options.nats === undefined) serve.error('error: --durable-mailboxes needs --nats <url>');
  const { serveCommand } = await import('./serve.js');
  process.exitCode = await serveCommand(
    {
      port: options.port,
      host: options.host,
      memory: options.memory,
      strictStore: options.strictStore,
      ...(options.skills === undefined ? {} : { skills: options.skills }),
      ...(options.dataDir === undefined ? {} : { dataDir: options.dataDir }),
      ...(options.mcp === undefined ? {} : { mcp: options.mcp }),
      drainTimeoutMs: options.drainTimeout * 1000,
      headersTimeoutMs: Math.round(options.headersTimeout * 1000),
      requestTimeoutMs: Math.round(options.requestTimeout * 1000),
      corsOrigins: options.cors ?? [],
      a2a: {
        ...(options.a2aMaxTasks === undefined ? {} : { maxTasks: options.a2aMaxTasks }),
        ...(options.a2aMaxHistory === undefined ? {} : { maxHistory: options.a2aMaxHistory }),
        ...(options.a2aMaxCardSkills === undefined ? {} : { maxCardSkills: options.a2aMaxCardSkills }),
      },
      console: options.console,
      ...inspectFlags(options),
      ...otelFlags(options),
      ...(options.nats === undefined
        ? {}
        : { nats: { url: options.nats, society: options.society ?? 'default', durableMailboxes: options.durableMailboxes === true } }),
    },
    io,
  );
});

const mcp = program
  .command('mcp')
  .description('serve the society to an MCP client (desktop assistant, IDE) over stdio, with a runtime of its own, until stdin ends or SIGINT/SIGTERM')
  .option('--drain-timeout <seconds>', 'on shutdown, how long turns in flight may finish', nonNegativeNumber('--drain-timeout'), 30);
for (const option of dataDirOptions()) mcp.addOption(option);
mcp.addOption(skillsOption());
mcp.addOption(mcpOption());
for (const option of otelOptions()) mcp.addOption(option);
type McpFlags = {
  dataDir?: string;
  memory: boolean;
  strictStore: boolean;
  skills?: string[];
  mcp?: string;
  drainTimeout: number;
  otel?: boolean;
  otelContent?: boolean;
};
mcp.action(async (options: McpFlags) => {
  const { mcpCommand } = await import('./mcpCommand.js');
  process.exitCode = await mcpCommand(
    {
      memory: options.memory,
      strictStore: options.strictStore,
      drainTimeoutMs: options.drainTimeout * 1000,
      ...(options.dataDir === undefined ? {} : { dataDir: options.dataDir }),
      ...(options.skills === undefined ? {} : { skills: options.skills }),
      ...(options.mcp === undefined ? {} : { mcp: options.mcp }),
      ...otelFlags(options),
    },
    io,
  );
});

// Read-only views over the data dir.
registerOrgCommand(program, io);
registerMessagesCommand(program, io);
registerArtifactCommand(program, io);
registerMemoryCommand(program, io);
registerGraphCommand(program, io);
registerNodeCommand(program, io);
// Writes to a data dir no runtime has open.
registerAgentsCommand(program, io);
// Lists what agents may use.
registerToolsCommand(program, io);
registerSkillsCommand(program, io);
// Decisions on the tool calls a running `troupe serve` waits on, over its HTTP API.
registerApprovalsCommands(program, io);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (!(error instanceof CommanderError)) throw error;
  // --help and --version end with 0; every refusal of the command line is a usage error.
  process.exitCode = error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
}
// Leave no lingering handle (an inspector relay's clients, say) between the answer and the exit,
// but only once all that was printed has left: a pipe takes it no faster than its reader reads.
await exitWhenWritten(Number(process.exitCode ?? ExitCode.ok));
