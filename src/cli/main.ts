#!/usr/bin/env node
import { Command, InvalidArgumentError } from 'commander';
import { registerMessagesCommand } from './messagesView.js';
import { serveModel } from './modelServer.js';
import { registerOrgCommand } from './orgView.js';
import { runRequirement } from './run.js';
import { serveCommand } from './serve.js';

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

/** A port for `serve`, where 0 asks the system for any free one. */
function portOrAny(value: string): number {
  return value.trim() === '0' ? 0 : port(value);
}

const program = new Command()
  .name('troupe')
  .description('An actor-model runtime for societies of LLM agents')
  .showHelpAfterError()
  .exitOverride((error) => {
    process.exit(error.exitCode === 0 ? 0 : 2);
  });

program
  .command('run')
  .description('give the root agent one requirement, print each Task as the society works, exit when the user has the answer')
  .argument('<requirement>', 'what you want done')
  .option('-t, --timeout <seconds>', 'give up after this many seconds', positiveNumber('--timeout'), 300)
  .option('--inspect [port]', 'serve the Stately inspector relay (default port 8080) and stream every actor to it', port)
  .option('--inspect-ws <url>', 'stream inspection events to an existing WebSocket inspector')
  .option('-v, --verbose', "also print the model's streamed text", false)
  .option('--no-status', 'do not draw the live status line')
  .option('--data-dir <dir>', 'organisation store to write and restore (default: TROUPE_DATA_DIR, else ./.troupe)')
  .option('--memory', 'keep the organisation in memory only', false)
  .action(async (requirement: string, options: { timeout: number; inspect?: number | true; inspectWs?: string; verbose: boolean; status: boolean; dataDir?: string; memory: boolean }) => {
    if (requirement.trim() === '') {
      process.stderr.write('troupe: the requirement must not be empty\n');
      process.exit(2);
    }
    const code = await runRequirement(
      requirement,
      {
        timeoutSeconds: options.timeout,
        verbose: options.verbose,
        status: options.status,
        dataDir: options.memory ? null : options.dataDir ?? (process.env['TROUPE_DATA_DIR']?.trim() || './.troupe'),
        ...(options.inspectWs === undefined ? {} : { inspectUrl: options.inspectWs }),
        ...(options.inspect === undefined ? {} : { inspectPort: options.inspect === true ? 8080 : options.inspect }),
      },
      { stdout: process.stdout, stderr: process.stderr, env: process.env },
    );
    process.exitCode = code;
  });

program
  .command('model-server')
  .description('serve the offline playbook over the OpenAI chat-completions protocol (for trying OPENAI_BASE_URL without a model)')
  .option('-p, --port <port>', 'port to listen on', port, 4010)
  .option('--host <host>', 'interface to bind', '127.0.0.1')
  .option('--chunk-delay <ms>', 'pause between streamed chunks', nonNegativeNumber('--chunk-delay'), 0)
  .action(async (options: { port: number; host: string; chunkDelay: number }) => {
    process.exitCode = await serveModel({ port: options.port, host: options.host, chunkDelayMs: options.chunkDelay }, { stdout: process.stdout, stderr: process.stderr });
  });

program
  .command('serve')
  .description('serve the HTTP API and a console (a line for root, "@agentId text" for an agent) until SIGINT or SIGTERM')
  .option('-p, --port <port>', 'port to listen on (0: any free port)', portOrAny, 3000)
  .option('--host <host>', 'interface to bind (beyond loopback, set TROUPE_TOKEN)', '127.0.0.1')
  .option('--data-dir <dir>', 'organisation store to write and restore (default: TROUPE_DATA_DIR, else ./.troupe)')
  .option('--memory', 'keep the organisation in memory only', false)
  .option('--drain-timeout <seconds>', 'on shutdown, how long turns in flight may finish', nonNegativeNumber('--drain-timeout'), 30)
  .option('--no-console', 'do not read lines from stdin')
  .action(async (options: { port: number; host: string; dataDir?: string; memory: boolean; drainTimeout: number; console: boolean }) => {
    process.exitCode = await serveCommand(
      {
        port: options.port,
        host: options.host,
        dataDir: options.memory ? null : options.dataDir ?? (process.env['TROUPE_DATA_DIR']?.trim() || './.troupe'),
        drainTimeoutMs: options.drainTimeout * 1000,
        console: options.console,
      },
      { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env, signals: process, exit: (code) => process.exit(code) },
    );
  });

// Read-only views over the data dir.
registerOrgCommand(program);
registerMessagesCommand(program);

await program.parseAsync(process.argv);
// Leave no lingering handle (an inspector relay's clients, say) between the answer and the exit.
process.exit(process.exitCode ?? 0);
