import { describeError } from '../errors.js';
import type { Redactor } from '../task/index.js';
import { type ExitCode, exitCodeOf } from './exitCodes.js';
import type { SignalSource } from './stopSignals.js';

/** The environment a command reads its settings from: `process.env` in the real CLI. */
export type CliEnv = Readonly<Record<string, string | undefined>>;

/** Where a command writes; `isTTY` and `columns` are read when present (the status line, pretty logs). */
export interface CliOutput {
  /** Text, or bytes (an artifact's content, written as they are). */
  write(text: string | Uint8Array): unknown;
  readonly isTTY?: boolean;
  readonly columns?: number;
}

/**
 * All a command touches of its process, the same shape for every command: each reads its
 * settings from `env` (the library never does) and resolves to an `ExitCode`, so a command is
 * a function of this and can be run by another host than `main.ts`.
 */
export interface CliIo {
  /** Console input (`serve`). */
  readonly stdin?: NodeJS.ReadableStream & { readonly isTTY?: boolean };
  readonly stdout: CliOutput;
  readonly stderr: CliOutput;
  readonly env: CliEnv;
  /** What the long-running commands (`serve`, `model-server`) wait on to stop. */
  readonly signals?: SignalSource;
  /** Ends the process at once: `serve`'s way out on a second signal. */
  readonly exit?: (code: number) => void;
}

/**
 * Ends a command on `error`: one `troupe: …` line on stderr (after `about`, when given) and the
 * exit code of its error code from the one table.
 */
export function reportFailure(io: Pick<CliIo, 'stderr'>, error: unknown, about = ''): ExitCode {
  io.stderr.write(`troupe: ${about === '' ? '' : `${about}: `}${describeError(error)}\n`);
  return exitCodeOf(error);
}

/** `out`, with every text redacted as it is written (a JSON line never into invalid JSON): what the process prints can carry no configured secret. */
function redactedOutput(out: CliOutput, redactor: Redactor): CliOutput {
  return {
    // Bytes are an artifact's content as stored: redacting them would corrupt it.
    write: (text: string | Uint8Array) => out.write(typeof text === 'string' ? redactor.json(text) : text),
    get isTTY() {
      return out.isTTY;
    },
    get columns() {
      return out.columns;
    },
  };
}

/**
 * `io` whose stdout and stderr redact everything written to them, whichever command writes it
 * (Tasks, answers, log lines, errors, a base URL): the last pass of the one sanitiser before
 * text leaves the process. Each command still redacts what it prints as data too (values under
 * secret-looking keys), which text alone cannot tell.
 */
export function redactedIo<Io extends CliIo>(io: Io, redactor: Redactor): Io {
  return { ...io, stdout: redactedOutput(io.stdout, redactor), stderr: redactedOutput(io.stderr, redactor) };
}
