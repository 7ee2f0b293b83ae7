import { describeError } from '../errors.js';
import { type ModelClient, modelFromEnv } from '../llm/index.js';
import { type Runtime, createRuntime } from '../runtime/index.js';
import { createHttpServer } from '../server/index.js';
import { ExitCode } from './exitCodes.js';
import { startConsole } from './serveConsole.js';
import { createServeLogger } from './serveLogger.js';

export interface ServeOptions {
  readonly port: number;
  readonly host: string;
  /** The organisation store, or null to keep everything in memory. */
  readonly dataDir: string | null;
  /** How long shutdown lets turns in flight finish. */
  readonly drainTimeoutMs: number;
  /** Read requirements and `@agentId text` lines from stdin. */
  readonly console: boolean;
}

export interface ServeIo {
  readonly stdin: NodeJS.ReadableStream & { readonly isTTY?: boolean };
  readonly stdout: { write(text: string): unknown; readonly isTTY?: boolean };
  readonly stderr: { readonly isTTY?: boolean };
  readonly env: NodeJS.ProcessEnv;
  /** Where SIGINT and SIGTERM come from (the process). */
  readonly signals: { on(signal: 'SIGINT' | 'SIGTERM', listener: () => void): unknown };
  /** Ends the process at once: the second signal's way out. */
  readonly exit: (code: number) => void;
}

const signalExitCodes = { SIGINT: 130, SIGTERM: 143 } as const;

/**
 * `troupe serve`: the runtime behind the HTTP API and a console, until SIGINT or SIGTERM; then
 * it stops taking requests and Tasks, lets turns in flight finish, persists, closes and logs a
 * summary. A second signal exits at once. A port that cannot be bound is logged and the
 * runtime stays up in console mode. Resolves to the exit code.
 */
export async function serveCommand(options: ServeOptions, io: ServeIo): Promise<number> {
  const logger = createServeLogger(io.env, io.stderr);
  let model: ModelClient;
  let rt: Runtime;
  try {
    model = modelFromEnv(io.env);
  } catch (error) {
    logger.error({ error: describeError(error) }, 'bad model settings in the environment');
    return ExitCode.usage;
  }
  try {
    rt = await createRuntime({ logger, model, dataDir: options.dataDir, drainTimeoutMs: options.drainTimeoutMs });
  } catch (error) {
    logger.error({ dataDir: options.dataDir, error: describeError(error) }, 'the runtime could not start');
    return ExitCode.internal;
  }
  logger.info({ model: rt.model.name, scripted: rt.model.scripted, dataDir: options.dataDir ?? 'memory only', agents: rt.agents().length }, 'runtime started');

  const token = io.env['TROUPE_TOKEN']?.trim();
  const server = createHttpServer(rt, { token, secrets: [io.env['OPENAI_API_KEY']], logger });
  let listening = false;
  try {
    const url = await server.listen({ port: options.port, host: options.host });
    listening = true;
    logger.info({ url, auth: token === undefined || token === '' ? 'none' : 'bearer' }, 'HTTP API listening');
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
    { agents: summary.agents, stoppedAgents: summary.terminatedAgents, pendingTasks: summary.pendingTasks, drained: summary.drained, elapsedMs: Date.now() - started },
    'troupe serve stopped',
  );
  return ExitCode.ok;
}
