import { describeError } from '../errors.js';
import { type Runtime, createRuntime } from '../runtime/index.js';
import type { Logger } from '../logger.js';
import { type HttpServer, createHttpServer } from '../server/index.js';
import { Redactor, redactingLogger } from '../task/index.js';
import { type CliIo, reportFailure } from './cliIo.js';
import { type RuntimeSettings, readRuntimeSettings, readSecrets, readToken } from './environment.js';
import { ExitCode, exitCodeOf } from './exitCodes.js';
import { startConsole } from './serveConsole.js';
import { createServeLogger } from './serveLogger.js';

export interface ServeOptions {
  readonly port: number;
  readonly host: string;
  /** `--data-dir`; see `resolveDataDir` for the default. */
  readonly dataDir?: string;
  /** `--memory`: keep the organisation in memory only. */
  readonly memory: boolean;
  /** How long shutdown lets turns in flight finish. */
  readonly drainTimeoutMs: number;
  /** Time a client has to send a request's headers, and the whole request (see the server's limits). */
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  /** `--cors`: origins whose pages may call the API; empty: CORS off. */
  readonly corsOrigins: readonly string[];
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
  const secrets = readSecrets(io.env);
  // Redacted before anything is written: the request log prints URLs, and `?access_token=` with them.
  const logger = redactingLogger(createServeLogger(settings.logLevel, io.stderr), new Redactor(secrets));
  let rt: Runtime;
  try {
    rt = await createRuntime({ ...settings.limits, logger, model, dataDir, drainTimeoutMs: options.drainTimeoutMs, secrets });
  } catch (error) {
    logger.error({ dataDir, error: describeError(error) }, 'the runtime could not start');
    return exitCodeOf(error);
  }
  logger.info({ model: rt.model.name, scripted: rt.model.scripted, dataDir: dataDir ?? 'memory only', agents: rt.agents().length }, 'runtime started');

  const token = readToken(io.env);
  const { headersTimeoutMs, requestTimeoutMs, corsOrigins } = options;
  let server: HttpServer;
  try {
    server = createHttpServer(rt, { token, secrets, logger, headersTimeoutMs, requestTimeoutMs, corsOrigins });
  } catch (error) {
    logger.error({ error: describeError(error) }, 'the HTTP API could not start: bad settings');
    await rt.shutdown({ drainTimeoutMs: 0 });
    return exitCodeOf(error);
  }
  const listening = await listenOrLog(server, options, token, logger);
  if (!listening && !options.console) {
    logger.error({}, nothingToServe('there is no console (--no-console)'));
    await rt.shutdown({ drainTimeoutMs: 0 });
    return ExitCode.usage;
  }

  const terminal = options.console ? startConsole(rt, { input: io.stdin, output: io.stdout }) : undefined;
  if (terminal !== undefined && io.stdin.isTTY === true) io.stdout.write('Type a requirement for root, or "@agentId text"; Ctrl-C stops.\n');
  // Without the HTTP API, the console is all there is: when its input ends, so does the service.
  const stop = await untilStopped(io, logger, listening ? undefined : terminal?.idle);
  if (stop === 'input ended') logger.error({}, nothingToServe("the console's input has ended"));

  const started = Date.now();
  logger.info({ signal: stop, drainTimeoutMs: options.drainTimeoutMs }, 'shutting down: no new requests or Tasks; letting turns in flight finish');
  terminal?.close();
  // The listener stays open while the runtime drains, answering intake 503 instead of refusing connections.
  if (listening) server.drain();
  const summary = await rt.shutdown({ drainTimeoutMs: options.drainTimeoutMs });
  if (listening) await server.close();
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
  return stop === 'input ended' ? ExitCode.usage : ExitCode.ok;
}

const nothingToServe = (why: string): string => `the HTTP API could not start and ${why}: nothing to serve; exiting`;

/** Binds the server; a failure (port in use …) is logged, and the service may go on with its console. */
async function listenOrLog(server: HttpServer, options: ServeOptions, token: string | undefined, logger: Logger): Promise<boolean> {
  try {
    const url = await server.listen({ port: options.port, host: options.host });
    logger.info({ url, auth: token === undefined ? 'none' : 'bearer' }, 'HTTP API listening');
    return true;
  } catch (error) {
    const next = options.console ? 'running in console mode only' : 'exiting';
    logger.error({ host: options.host, port: options.port, error: describeError(error) }, `the HTTP API could not start; ${next}`);
    return false;
  }
}

/**
 * Resolves with the first signal (a second one exits at once), or with `input ended` when
 * `inputEnded` (given when the console is all the service has) resolves first.
 */
function untilStopped(io: ServeIo, logger: Logger, inputEnded: Promise<void> | undefined): Promise<'SIGINT' | 'SIGTERM' | 'input ended'> {
  return new Promise((resolve) => {
    let received: 'SIGINT' | 'SIGTERM' | 'input ended' | undefined;
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
    void inputEnded?.then(() => {
      if (received !== undefined) return;
      received = 'input ended';
      resolve(received);
    });
  });
}
