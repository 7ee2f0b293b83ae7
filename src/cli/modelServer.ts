import { describeError } from '../errors.js';
import { startOpenAICompatibleServer } from '../llm/testing/openaiCompatibleServer.js';
import type { CliIo } from './cliIo.js';
import { ExitCode } from './exitCodes.js';
import { firstStopSignal } from './stopSignals.js';

export interface ModelServerOptions {
  readonly port: number;
  readonly host: string;
  readonly chunkDelayMs: number;
}

/**
 * `troupe model-server`: the offline playbook behind the OpenAI protocol, so the whole path
 * through the `openai` package can be tried with no model at all. Runs until SIGINT/SIGTERM.
 */
export async function serveModel(options: ModelServerOptions, io: CliIo & Required<Pick<CliIo, 'signals'>>): Promise<ExitCode> {
  let server: Awaited<ReturnType<typeof startOpenAICompatibleServer>>;
  try {
    // It runs for as long as it is left up and reads no request back: it keeps none.
    server = await startOpenAICompatibleServer({ port: options.port, host: options.host, chunkDelayMs: options.chunkDelayMs, keepRequests: 0 });
  } catch (error) {
    io.stderr.write(`troupe model-server: cannot listen on ${options.host}:${options.port}: ${describeError(error)}\n`);
    return ExitCode.usage;
  }
  io.stdout.write(`troupe model-server: an offline, scripted OpenAI-compatible endpoint at ${server.baseURL}\n`);
  io.stdout.write(`try: OPENAI_BASE_URL=${server.baseURL} troupe run "write a haiku about rain"\n`);
  await firstStopSignal(io.signals);
  await server.close();
  io.stderr.write(`troupe model-server: stopped after ${server.chatCalls} chat requests\n`);
  return ExitCode.ok;
}
