import { type Logger, logsAt } from '../logger.js';
import type { JsonValue, Task } from './schema.js';

export const redactedMark = '[REDACTED]';

/** Keys whose values are secret wherever they appear: `apiKey`, `access_token`, `clientSecret` … */
const secretKey = /(api[_-]?key|secret|password|passwd|authorization|credentials?|token)$/i;

/** Well-known key shapes in free text: OpenAI-style, bearer headers, GitHub, AWS and Slack tokens. */
const secretShapes: readonly RegExp[] = [
  /\bsk-[A-Za-z0-9_-]{16,}/g,
  /\bBearer\s+[A-Za-z0-9._~+/-]{8,}=*/gi,
  /\bgh[pousr]_[A-Za-z0-9]{20,}/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/g,
  // The value of a credential in a URL's query (`?access_token=…`, `&api_key=…`), the name kept.
  /(?<=[?&](?:access_token|token|api[_-]?key|key|secret)=)[^&\s#"']+/gi,
];

/** Configured secrets shorter than this are ignored: redacting every "a" would garble everything. */
const minSecretLength = 6;

/**
 * Takes secrets out of Tasks before they leave the process (SSE, logs): values under secret-looking
 * keys, strings shaped like well-known keys, and every occurrence of a configured secret value
 * (the model's API key, the server's own token …).
 */
export class Redactor {
  readonly #secrets: readonly string[];

  constructor(secrets: readonly (string | undefined)[] = []) {
    const usable = secrets.filter((secret): secret is string => secret !== undefined && secret.length >= minSecretLength);
    // Longest first, so a secret that contains another is replaced whole.
    this.#secrets = [...new Set(usable)].sort((a, b) => b.length - a.length);
  }

  /** A redactor of these secrets and `more` (the runtime's, plus the server's own token). */
  with(more: readonly (string | undefined)[]): Redactor {
    return new Redactor([...this.#secrets, ...more]);
  }

  text(text: string): string {
    let out = text;
    for (const secret of this.#secrets) out = out.replaceAll(secret, redactedMark);
    for (const shape of secretShapes) out = out.replace(shape, redactedMark);
    return out;
  }

  value(value: JsonValue): JsonValue {
    if (typeof value === 'string') return this.text(value);
    if (Array.isArray(value)) return value.map((item) => this.value(item));
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, secretKey.test(key) && inner !== null ? redactedMark : this.value(inner)]));
    }
    return value;
  }

  /**
   * Anything a log line may carry (errors, plain objects, arrays), redacted as `value` is; an
   * Error becomes its name and message (its stack would repeat the message), and nesting past
   * `depth` is cut, so a cyclic field cannot hang the logger.
   */
  unknown(value: unknown, depth = 6): unknown {
    if (typeof value === 'string') return this.text(value);
    if (value instanceof Error) return { name: value.name, message: this.text(value.message) };
    if (value === null || typeof value !== 'object') return value;
    if (depth === 0) return '[nested too deep]';
    if (Array.isArray(value)) return value.map((item: unknown) => this.unknown(item, depth - 1));
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [
        key,
        secretKey.test(key) && inner !== null && inner !== undefined ? redactedMark : this.unknown(inner, depth - 1),
      ]),
    );
  }

  /** A copy of `task` with its free-form parts (parameters, result, error, metadata) redacted. */
  task(task: Task): Task {
    return {
      ...task,
      parameters: this.value(task.parameters) as Task['parameters'],
      result: task.result === null ? null : this.value(task.result),
      error: task.error === null ? null : { code: task.error.code, message: this.text(task.error.message) },
      metadata: this.value(task.metadata) as Task['metadata'],
    };
  }
}

/**
 * `logger`, with every message and field redacted first: the one way troupe logs once secrets are
 * configured. A line at a level `logger` does not write is dropped before it is redacted.
 */
export function redactingLogger(logger: Logger, redactor: Redactor): Logger {
  const line =
    (level: 'debug' | 'info' | 'warn' | 'error', write: (fields: Record<string, unknown>, message: string) => void) =>
    (fields: Record<string, unknown>, message: string): void => {
      if (logsAt(logger, level)) write(redactor.unknown(fields) as Record<string, unknown>, redactor.text(message));
    };
  return {
    debug: line('debug', (fields, message) => logger.debug(fields, message)),
    info: line('info', (fields, message) => logger.info(fields, message)),
    warn: line('warn', (fields, message) => logger.warn(fields, message)),
    error: line('error', (fields, message) => logger.error(fields, message)),
    isLevelEnabled: (level) => logsAt(logger, level),
  };
}
