import { describeError } from '../errors.js';
import { type Runtime, createRuntime } from '../runtime/index.js';
import { createHttpServer } from '../server/index.js';
import { type CliIo, reportFailure } from './cliIo.js';
import { type RuntimeSettings, readRuntimeSettings, readSecrets, readToken } from './environment.js';
import { ExitCode, exitCodeOf } from './exitCodes.js';
import { startConsole } from './serveConsole.js';
import { createServeLogger } from './serveLogger.js';
import { refuseDamagedStore } from './strictStore.js';

export interface ServeOptions {
  readonly port: number;
  readonly host: string;
  /** `--data-dir`; see `resolveDataDir` for the default. */
  readonly dataDir?: string;
  /** `--memory`: keep the organisation in memory only. */
  readonly memory: boolean;
  /** `--strict-store`: refuse a damaged store (exit 2) instead of setting it aside. */
  readonly strictStore?: boolean;
  /** How long shutdown lets turns in flight finish. */
  readonly drainTimeoutMs: number;
  /** Read requirements and `@agentId text` lines from stdin. */
  readonly console: boolean;
}

/** `serve` reads the console from stdin, stops on signals and may exit at once on a second one. */
export type ServeIo = CliIo & Required<Pick<CliIo, 'stdin' | 'signals' | 'exit'>>;

const signalExitCodes = { SIGINT: ExitCode.sigint, SIGTERM: ExitCode.sigterm } as const;

/**
 * `troupe serve`: the runtime behind the HTTP API and a console, until SIGINT or SIGTERM; then
 * it stops taking requests and Tasks, lets turns in flight finish, persists, closes and logs a
 * summary. A second signal exits at once. A port that cannot be bound is logged and the
 * runtime stays up in console mode. Resolves to the exit code.
 */
export async function serveCommand(options: ServeOptions, io: ServeIo): Promise<ExitCode> {
  let settings: RuntimeSettings;
  try {
    settings = readRuntimeSettings(options, io.env, 'info');
  } catch (error) {
    // No logger yet: its level is one of the settings.
    return reportFailure(io, error, 'bad settings in the environment');
  }
  const { model, dataDir } = settings;
  const logger = createServeLogger(settings.logLevel, io.stderr);
  let rt: Runtime;
  try {
    if (options.strictStore === true) await refuseDamagedStore(dataDir, logger);
    rt = await createRuntime({ logger, model, dataDir, drainTimeoutMs: options.drainTimeoutMs });
  } catch (error) {
    logger.error({ dataDir, error: describeError(error) }, 'the runtime could not start');
    return exitCodeOf(error);
  }
  logger.info({ model: rt.model.name, scripted: rt.model.scripted, dataDir: dataDir ?? 'memory only', agents: rt.agents().length }, 'runtime started');

  const token = readToken(io.env);
  const server = createHttpServer(rt, { token, secrets: readSecrets(io.env), logger });
  let listening = false;
  try {
    const url = await server.listen({ port: options.port, host: options.host });
    listening = true;
    logger.info({ url, auth: token === undefined ? 'none' : 'bearer' }, 'HTTP API listening');
  } catch (error) {
    logger.error({ host: options.host, port: options.port, error: describeError(error) }, 'the HTTP API could not start; running in console mode only');
  }

  const terminal = options.console ? startConsole(rt, { input: io.stdin, output: io.stdout }) : undefined;
  if (terminal !== undefined && io.stdin.isTTY === true) io.stdout.write('Type a requirement for root, or "@agentId text"; Ctrl-C stops.\n');

  const signal = await new Promise<'SIGINT' | 'SIGTERM'>((resolve) => {
    let received: 'SIGINT' | 'SIGTERM' | undefined;
    const on = (name: 'SIGINT' | 'SIGTERM') => (): void => {
      if (received === undefined) {
        received = name;
        resolve(name);
        return;
      }
      logger.warn({ signal: name }, 'second signal: exiting without waiting');
      io.exit(signalExitCodes[name]);
    };
    io.signals.on('SIGINT', on('SIGINT'));
    io.signals.on('SIGTERM', on('SIGTERM'));
  });

  const started = Date.now();
  logger.info({ signal, drainTimeoutMs: options.drainTimeoutMs }, 'shutting down: no new requests or Tasks; letting turns in flight finish');
  terminal?.close();
  const [summary] = await Promise.all([rt.shutdown({ drainTimeoutMs: options.drainTimeoutMs }), listening ? server.close() : undefined]);
  logger.info(
    {
      agents: summary.agents,
      stoppedAgents: summary.terminatedAgents,
      pendingTasks: summary.pendingTasks,
      drained: summary.drained,
      elapsedMs: Date.now() - started,
    },
    'troupe serve stopped',
  );
  return ExitCode.ok;
}
