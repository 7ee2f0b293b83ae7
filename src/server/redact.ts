import type { JsonValue, Task } from '../task/index.js';

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
