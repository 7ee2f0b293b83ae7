import { readCommandSettings } from './commandSettings.js';
import { EventBus, NodeDirectory, connectNatsTransport } from '../bus/index.js';
import { systemClock } from '../clock.js';
import { describeError } from '../errors.js';
import { type Runtime, createRuntime } from '../runtime/index.js';
import type { ModelClient } from '../llm/index.js';
import type { Logger } from '../logger.js';
import { type A2aLimitOptions, type HttpServer, createHttpServer } from '../server/index.js';
import { redactingLogger } from '../task/index.js';
import { type CliEnv, type CliIo } from './cliIo.js';
import { settingsOptions } from './mcpOption.js';
import { type RuntimeSettings, readDurableMailboxes, readNatsLogin, readToken } from './environment.js';
import { type NatsSociety, natsUrlSecrets } from './natsArguments.js';
import { ExitCode, exitCodeOf } from './exitCodes.js';
import { type InspectFlags, type OpenedInspector, openInspector } from './inspector.js';
import { type OtelFlags, type TraceExport, openTraceExport } from './traceExport.js';
import { listenHint } from './listenHint.js';
import { type ServeConsole, startConsole } from './serveConsole.js';
import { createServeLogger } from './serveLogger.js';
import { refuseDamagedStore } from './strictStore.js';
import { type StopSignal, onStopSignals } from './stopSignals.js';

export interface ServeOptions extends InspectFlags, OtelFlags {
  readonly port: number;
  readonly host: string;
  /** `--data-dir`; see `resolveDataDir` for the default. */
  /** `--mcp <file>`: the MCP servers whose tools agents get (else `TROUPE_MCP_CONFIG`). */
  readonly mcp?: string;
  readonly dataDir?: string;
  /** `--memory`: keep the organisation in memory only. */
  readonly memory: boolean;
  /** `--strict-store`: refuse a damaged store (exit 2) instead of setting it aside. */
  readonly strictStore?: boolean;
  /** How long shutdown lets turns in flight finish. */
  readonly drainTimeoutMs: number;
  /** Time a client has to send a request's headers, and the whole request (see the server's limits). */
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  /** `--cors`: origins whose pages may call the API; empty: CORS off. */
  readonly corsOrigins: readonly string[];
  /** `--a2a-max-tasks`, `--a2a-max-history`, `--a2a-max-card-skills`: the A2A endpoint's limits (docs/a2a.md). */
  readonly a2a?: A2aLimitOptions;
  /** Read requirements and `@agentId text` lines from stdin. */
  readonly console: boolean;
  /** A model the host brings instead of the one `OPENAI_*` names (a test's scripted model); the CLI gives none. */
  readonly model?: ModelClient;
  /**
   * `--nats <url> --society <name>`: the society's bus travels over this NATS server, shared with
   * every process on it; `--durable-mailboxes` keeps its agents' Tasks on nodes in JetStream.
   */
  readonly nats?: NatsSociety;
}

/** `serve` reads the console from stdin, stops on signals and may exit at once on a second one. */
export type ServeIo = CliIo & Required<Pick<CliIo, 'stdin' | 'signals' | 'exit'>>;

const signalExitCodes = { SIGINT: ExitCode.sigint, SIGTERM: ExitCode.sigterm } as const;

/**
 * `troupe serve`: the runtime behind the HTTP API and a console, until SIGINT or SIGTERM; then
 * it stops taking requests and Tasks, lets turns in flight finish, persists, closes and logs a
 * summary. A second signal exits at once. A port that cannot be bound is logged and the
 * runtime stays up in console mode. With `--inspect`, every actor streams to the Stately
 * inspector for as long as the service runs. Resolves to the exit code.
 */
export async function serveCommand(options: ServeOptions, io: ServeIo): Promise<ExitCode> {
  const read = readCommandSettings(options, io, 'info', options.nats === undefined ? [] : natsUrlSecrets(options.nats.url));
  if (typeof read === 'number') return read;
  const { settings, secrets, redactor } = read;
  // Redacted before anything is written: the request log prints URLs, and `?access_token=` with them.
  const logger = redactingLogger(createServeLogger(settings.logLevel, io.stderr), redactor);
  // Connected before the runtime starts, so no actor is missed.
  let inspector: OpenedInspector | undefined;
  try {
    inspector = await openInspector(options, redactor);
  } catch (error) {
    logger.error({ error: describeError(error) }, 'the inspector could not start');
    return exitCodeOf(error);
  }
  if (inspector?.pageUrl !== undefined)
    logger.info({ url: inspector.pageUrl }, 'inspector relay listening: open it to watch every actor in the Stately inspector');
  else if (inspector !== undefined) logger.info({ url: options.inspectUrl }, 'sending actor inspection events to the inspector');
  let traces: TraceExport | undefined;
  try {
    traces = await openTraceExport(options, io.env, 'troupe serve');
    if (traces !== undefined) logger.info({ url: traces.url }, 'exporting traces');
    return await serveRuntime(options, io, { settings, secrets, logger, inspect: inspector?.inspect, tracing: traces?.tracing });
  } finally {
    // The inspector lives as long as the service; a page still open stops receiving from here on.
    await inspector?.close();
    await traces?.close();
  }
}

/** What `serveCommand` read before the runtime: its settings, the secrets, its logger, and where inspection events go. */
interface ServeContext {
  readonly settings: RuntimeSettings;
  readonly secrets: readonly string[];
  readonly logger: Logger;
  readonly inspect: OpenedInspector['inspect'] | undefined;
  readonly tracing: TraceExport['tracing'] | undefined;
}

/** The runtime, its HTTP API and console, from start to the end of the graceful shutdown; resolves to the exit code. */
async function serveRuntime(options: ServeOptions, io: ServeIo, { settings, secrets, logger, inspect, tracing }: ServeContext): Promise<ExitCode> {
  const { dataDir } = settings;
  const model = options.model ?? settings.model;
  let rt: Runtime;
  let bus: EventBus | undefined;
  // The owner hears the society's nodes announce themselves (`troupe node`) and places agents of their roles on them.
  let nodes: NodeDirectory | undefined;
  try {
    if (options.strictStore === true) await refuseDamagedStore(dataDir, logger);
    bus = options.nats === undefined ? undefined : await natsBus(options.nats, io.env, logger);
    nodes = bus === undefined ? undefined : new NodeDirectory(bus, { clock: systemClock, logger });
    const runtimeOptions = {
      ...(await settingsOptions(settings, options.mcp, io.env)),
      logger,
      model,
      drainTimeoutMs: options.drainTimeoutMs,
      secrets,
      ...(inspect === undefined ? {} : { inspect }),
      ...(tracing === undefined ? {} : { tracing }),
    };
    rt = await createRuntime(bus === undefined || nodes === undefined ? runtimeOptions : { ...runtimeOptions, bus, nodes: { directory: nodes } });
  } catch (error) {
    nodes?.close();
    // A runtime that failed closed its bus; one that was refused before it was built did not.
    await bus?.close();
    logger.error({ dataDir, error: describeError(error) }, 'the runtime could not start');
    return exitCodeOf(error);
  }
  const society = options.nats === undefined ? {} : { nats: options.nats.url, society: options.nats.society };
  logger.info(
    { model: rt.model.name, scripted: rt.model.scripted, dataDir: dataDir ?? 'memory only', agents: rt.agents().length, ...society },
    'runtime started',
  );
  // Whoever runs the service sees what waits for them, and how to decide it.
  rt.approvalEvents().subscribe(({ type, approval: { id, agentId, tool, taskId } }) => {
    if (type === 'waiting')
      logger.info({ approvalId: id, agentId, tool, taskId }, `a tool call waits for approval: troupe approve ${id}, or troupe reject ${id}`);
  });

  const token = readToken(io.env);
  const { headersTimeoutMs, requestTimeoutMs, corsOrigins } = options;
  let server: HttpServer;
  try {
    server = createHttpServer(rt, {
      token,
      secrets,
      logger,
      headersTimeoutMs,
      requestTimeoutMs,
      corsOrigins,
      ...(options.a2a === undefined ? {} : { a2a: options.a2a }),
    });
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
  const watch = untilStopped(io, logger, listening ? undefined : terminal?.idle);
  try {
    const stop = await watch.stopped;
    if (stop === 'input ended') logger.error({}, nothingToServe("the console's input has ended"));
    await stopService({ rt, server: listening ? server : undefined, terminal, logger }, stop, options.drainTimeoutMs);
    return stop === 'input ended' ? ExitCode.usage : ExitCode.ok;
  } finally {
    nodes?.close();
    // Only now: a second signal must still find its listener while the runtime drains.
    watch.stopListening();
  }
}

/** A bus on NATS for the society named, shared with every process on it. */
async function natsBus(nats: NatsSociety, env: CliEnv, logger: Logger): Promise<EventBus> {
  const transport = await connectNatsTransport({
    ...readNatsLogin(env),
    servers: nats.url,
    society: nats.society,
    logger,
    name: `troupe serve (${nats.society})`,
    ...(nats.durableMailboxes === true ? { durableMailboxes: readDurableMailboxes(env) } : {}),
  });
  return new EventBus({ transport, logger });
}

/** What `serve` runs and has to stop; `server` only when it is listening. */
interface Service {
  readonly rt: Runtime;
  readonly server: HttpServer | undefined;
  readonly terminal: ServeConsole | undefined;
  readonly logger: Logger;
}

/**
 * The graceful shutdown: intake stops at once (the console reads no more, the API answers 503),
 * turns in flight may finish within `drainTimeoutMs`, then everything closes and a summary is logged.
 */
async function stopService({ rt, server, terminal, logger }: Service, stop: StopReason, drainTimeoutMs: number): Promise<void> {
  const started = Date.now();
  logger.info({ signal: stop, drainTimeoutMs }, 'shutting down: no new requests or Tasks; letting turns in flight finish');
  terminal?.stopReading();
  // The listener stays open while the runtime drains, answering intake 503 instead of refusing connections.
  server?.drain();
  const summary = await rt.shutdown({ drainTimeoutMs });
  await server?.close();
  // The console printed the answers of the drain (those cancelled too) up to here.
  terminal?.close();
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
    const hint = listenHint(error, options);
    logger.error(
      { host: options.host, port: options.port, error: describeError(error), ...(hint === undefined ? {} : { hint }) },
      `the HTTP API could not start; ${next}`,
    );
    return false;
  }
}

type StopReason = StopSignal | 'input ended';

/**
 * `stopped` resolves with the first signal, or with `input ended` when `inputEnded` (given when
 * the console is all the service has) resolves first; any signal after that exits at once.
 * The signals are listened to until `stopListening` is called.
 */
function untilStopped(
  io: ServeIo,
  logger: Logger,
  inputEnded: Promise<void> | undefined,
): { readonly stopped: Promise<StopReason>; readonly stopListening: () => void } {
  let stopListening = (): void => undefined;
  const stopped = new Promise<StopReason>((resolve) => {
    let received: StopReason | undefined;
    stopListening = onStopSignals(io.signals, (signal) => {
      if (received === undefined) {
        received = signal;
        resolve(signal);
        return;
      }
      logger.warn({ signal, exitCode: signalExitCodes[signal] }, 'second signal: exiting without waiting');
      io.exit(signalExitCodes[signal]);
    });
    void inputEnded?.then(() => {
      if (received !== undefined) return;
      received = 'input ended';
      resolve(received);
    });
  });
  return { stopped, stopListening };
}
