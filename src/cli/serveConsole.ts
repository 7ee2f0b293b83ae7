import { createInterface } from 'node:readline';
import { describeError } from '../errors.js';
import type { Runtime } from '../runtime/index.js';
import { type Task, finalStatuses, taskText } from '../task/index.js';
import { formatTask } from './formatTask.js';

/** What one console line asks for: `@agentId text` addresses an agent, anything else goes to root. */
export type ConsoleCommand =
  { readonly kind: 'submit'; readonly text: string } | { readonly kind: 'send'; readonly agentId: string; readonly text: string } | { readonly kind: 'blank' };

function parseConsoleLine(line: string): ConsoleCommand {
  const trimmed = line.trim();
  if (trimmed === '') return { kind: 'blank' };
  const addressed = /^@(\S+)\s+([\s\S]+)$/.exec(trimmed);
  if (addressed?.[1] !== undefined && addressed[2] !== undefined) return { kind: 'send', agentId: addressed[1], text: addressed[2] };
  return { kind: 'submit', text: trimmed };
}

/**
 * The same intake calls the HTTP API makes (`POST /api/submit` ≡ a plain line, `POST /api/send`
 * ≡ `@agentId text`), so both doors forward a message identically. Resolves with the id of the
 * Task sent, or undefined for a blank line.
 */
async function forwardConsoleCommand(runtime: Runtime, command: ConsoleCommand): Promise<string | undefined> {
  switch (command.kind) {
    case 'blank':
      return undefined;
    case 'submit':
      return runtime.submit(command.text);
    case 'send':
      return runtime.send(command.agentId, command.text);
    default: {
      const never: never = command;
      return never;
    }
  }
}

/** How a Task that reached the user is shown: the whole answer when final, one line otherwise. */
function formatForUser(task: Task): string {
  if (!finalStatuses.has(task.status)) return `${formatTask(task)}\n`;
  const body = task.status === 'completed' ? taskText(task) : `${task.status}: ${task.error?.message ?? 'no reason given'}`;
  return `── ${task.from} → user [${task.status}] task ${task.id}\n${body}\n`;
}

export interface ConsoleIo {
  readonly input: NodeJS.ReadableStream;
  readonly output: { write(text: string): unknown };
}

/** A running console: its reading stops first, at shutdown; its printing once the runtime has stopped. */
export interface ServeConsole {
  /** Reads no more lines; what reaches the user is still printed. */
  stopReading(): void;
  /** Reads and prints no more. */
  close(): void;
  /** Resolves once the input has ended and every line read has been forwarded. */
  readonly idle: Promise<void>;
}

/**
 * Console mode of `troupe serve`: reads lines (a requirement for root, or `@agentId text`),
 * acknowledges each with the id of the Task sent, and prints what reaches the user. The end
 * of the input stops the reading, not the service.
 */
export function startConsole(runtime: Runtime, io: ConsoleIo): ServeConsole {
  const stopOutput = runtime.onOutput((task) => io.output.write(formatForUser(task)));
  const lines = createInterface({ input: io.input, terminal: false });
  // Lines are forwarded one at a time, in the order they were typed.
  let queue: Promise<void> = Promise.resolve();
  lines.on('line', (line) => {
    queue = queue.then(async () => {
      const command = parseConsoleLine(line);
      try {
        const id = await forwardConsoleCommand(runtime, command);
        if (id !== undefined) io.output.write(`→ ${command.kind === 'send' ? command.agentId : 'root'}  task ${id}\n`);
      } catch (error) {
        io.output.write(`troupe: ${describeError(error)}\n`);
      }
    });
  });
  const closed = new Promise<void>((resolve) => lines.once('close', resolve));
  return {
    stopReading: () => lines.close(),
    close: () => {
      lines.close();
      stopOutput();
    },
    idle: closed.then(() => queue),
  };
}
