import { createInterface } from 'node:readline';
import type { ApprovalDecision, Approval, JsonValue } from '../task/index.js';
import type { CliOutput } from './cliIo.js';
import { describeApproval } from './approvalView.js';

/** Lines read from a stream one at a time, as they are asked for; null once it has ended. */
export class LineReader {
  readonly #lines: string[] = [];
  readonly #waiting: ((line: string | null) => void)[] = [];
  readonly #close: () => void;
  #ended = false;

  constructor(input: NodeJS.ReadableStream) {
    const lines = createInterface({ input, terminal: false });
    lines.on('line', (line) => {
      const waiter = this.#waiting.shift();
      if (waiter === undefined) this.#lines.push(line);
      else waiter(line);
    });
    lines.on('close', () => this.#end());
    this.#close = () => lines.close();
  }

  next(): Promise<string | null> {
    const line = this.#lines.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (this.#ended) return Promise.resolve(null);
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  /** Stops reading: whoever waits for a line gets null. */
  close(): void {
    this.#close();
    this.#end();
  }

  #end(): void {
    this.#ended = true;
    for (const waiter of this.#waiting.splice(0)) waiter(null);
  }
}

/** Who a decision made on the terminal is recorded as made by. */
export const decidedOnTerminal = 'cli';

/** `text` as an edit's arguments: a JSON object, or a reason it is not one. */
function editedArguments(text: string): Record<string, JsonValue> | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return `not JSON (${error instanceof Error ? error.message : String(error)})`;
  }
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, JsonValue>) : 'not a JSON object';
}

/**
 * Asks on a terminal what to do with `approval` (shown as given: redact it first): approve,
 * reject (with a message the model reads, or none) or edit (new arguments, as a JSON object).
 * The decision names the digest of the call it was asked about. Resolves with null when the
 * input ends first.
 */
export async function askDecision(approval: Approval, lines: LineReader, output: CliOutput): Promise<ApprovalDecision | null> {
  output.write(`\n${describeApproval(approval).join('\n')}\n`);
  const base = { digest: approval.digest, by: decidedOnTerminal };
  for (;;) {
    output.write('approve, reject or edit? [a/r/e] ');
    const answer = await lines.next();
    if (answer === null) return null;
    const choice = answer.trim().toLowerCase();
    if (choice === 'a' || choice === 'approve') return { action: 'approve', ...base };
    if (choice === 'r' || choice === 'reject') {
      output.write('message for the model (empty: none): ');
      const message = (await lines.next())?.trim() ?? '';
      return { action: 'reject', ...base, ...(message === '' ? {} : { message }) };
    }
    if (choice === 'e' || choice === 'edit') {
      output.write('arguments (one line of JSON): ');
      const text = await lines.next();
      if (text === null) return null;
      const edited = editedArguments(text);
      if (typeof edited === 'object') return { action: 'edit', ...base, arguments: edited };
      output.write(`those arguments are ${edited}; asking again\n`);
      continue;
    }
    output.write(`"${answer.trim()}" is none of a (approve), r (reject), e (edit)\n`);
  }
}
