import { readCommandSettings } from './commandSettings.js';
import { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { type Runtime, createRuntime } from '../runtime/index.js';
import { societyMcpServer } from '../server/mcp/societyMcpServer.js';
import { WaitGate } from '../server/mcp/waitGate.js';
import { ServerLimitsSchema } from '../server/serverLimits.js';
import { redactingLogger } from '../task/index.js';
import { type CliIo, reportFailure } from './cliIo.js';
import { ExitCode } from './exitCodes.js';
import { settingsOptions } from './mcpOption.js';
import type { ServeIo } from './serve.js';
import { createServeLogger } from './serveLogger.js';
import { type StopSignal, onStopSignals } from './stopSignals.js';
import { refuseDamagedStore } from './strictStore.js';
import { type OtelFlags, type TraceExport, openTraceExport } from './traceExport.js';

export interface McpCommandOptions extends OtelFlags {
  readonly dataDir?: string;
  readonly memory: boolean;
  readonly strictStore?: boolean;
  readonly skills?: readonly string[];
  /** `--mcp <file>`: the MCP servers whose tools the agents get (else `TROUPE_MCP_CONFIG`). */
  readonly mcp?: string;
  readonly drainTimeoutMs: number;
}

/** The MCP stream on stdout: each message written whole, through the process's redacting output. */
function protocolOutput(io: CliIo): Writable {
  return new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      io.stdout.write(chunk.toString());
      done();
    },
  });
}

/** Resolves when the client closes our stdin (it has gone), or on the first SIGINT or SIGTERM. */
function untilDone(stdin: Readable, io: ServeIo): { readonly done: Promise<StopSignal | 'input ended'>; readonly stopListening: () => void } {
  let stopListening = (): void => undefined;
  const done = new Promise<StopSignal | 'input ended'>((resolve) => {
    stdin.once('end', () => resolve('input ended'));
    stopListening = onStopSignals(io.signals, resolve);
  });
  return { done, stopListening };
}

/**
 * `troupe mcp`: a runtime of its own (as `troupe run` and `serve` start one), served to one MCP
 * client over stdio (docs/mcp-server.md) until the client closes stdin or a signal comes; then
 * calls waiting for answers return, turns in flight may finish and the runtime shuts down.
 * Log lines go to stderr: stdout is the protocol's. Resolves to the exit code.
 */
export async function mcpCommand(options: McpCommandOptions, io: ServeIo): Promise<ExitCode> {
  const read = readCommandSettings(options, io, 'warn');
  if (typeof read === 'number') return read;
  const { settings, secrets, redactor } = read;
  const logger = redactingLogger(createServeLogger(settings.logLevel, io.stderr), redactor);
  let rt: Runtime;
  let traces: TraceExport | undefined;
  try {
    if (options.strictStore === true) await refuseDamagedStore(settings.dataDir, logger);
    // Spans go over OTLP/HTTP, never to stdout: the protocol keeps it.
    traces = await openTraceExport(options, io.env, 'troupe mcp');
    if (traces !== undefined) logger.info({ url: traces.url }, 'exporting traces');
    rt = await createRuntime({
      ...(await settingsOptions(settings, options.mcp, io.env)),
      logger,
      model: settings.model,
      drainTimeoutMs: options.drainTimeoutMs,
      secrets,
      ...(traces === undefined ? {} : { tracing: traces.tracing }),
    });
  } catch (error) {
    await traces?.close();
    return reportFailure(io, error, `the runtime could not start (data dir ${settings.dataDir ?? 'memory only'})`);
  }
  logger.info({ model: rt.model.name, scripted: rt.model.scripted, dataDir: settings.dataDir ?? 'memory only' }, 'troupe mcp: serving the society over stdio');
  const stopping = new AbortController();
  const server = societyMcpServer(rt, {
    redactor: rt.redactor,
    gate: new WaitGate(ServerLimitsSchema.parse({}).maxMcpWaits),
    stopping: stopping.signal,
    transport: 'pipe',
  });
  const stdin = io.stdin instanceof Readable ? io.stdin : Readable.from(io.stdin);
  const watch = untilDone(stdin, io);
  await server.connect(new StdioServerTransport(stdin, protocolOutput(io)));
  const stop = await watch.done;
  watch.stopListening();
  logger.info({ stop }, 'troupe mcp: stopping');
  stopping.abort();
  await server.close();
  await rt.shutdown({ drainTimeoutMs: options.drainTimeoutMs });
  await traces?.close();
  return ExitCode.ok;
}
