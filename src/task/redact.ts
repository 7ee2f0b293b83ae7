import { TroupeError } from '../errors.js';
import { type Logger, logsAt } from '../logger.js';
import { RedactingStream } from './redactingStream.js';
import type { JsonValue, Task } from './schema.js';
import { secretForms } from './secretForms.js';

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
  // The value of a credential in a URL's query (`?access_token=…`, `&api_key=…`), the name kept; not a
  // `<placeholder>`. It ends at a backslash too: no URL carries one, and in JSON it escapes what follows.
  /(?<=[?&](?:access_token|token|api[_-]?key|key|secret)=)(?!<)[^&\s#"'\\]+/gi,
];

/**
 * What every text one of `secretShapes` matches contains: most texts contain none of it, and one
 * test of this costs less than the six replacements it spares them.
 */
const mayHoldShape = /sk-|bearer|gh[pousr]_|akia|xox[abprs]-|=/i;

function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * What JSON text holding a key `secretKey` matches contains: the key's end, its closing quote and
 * the colon after it (JSON.stringify writes no space there, and escapes none of these letters).
 * A string value cannot end like that: its quotes inside are escaped. Tested with `mayHoldShape`.
 */
const mayHoldSecretKeyOrShape = new RegExp(`${mayHoldShape.source}|(?:api[_-]?key|secret|password|passwd|authorization|credentials?|token)":`, 'i');

const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Configured secrets shorter than this are ignored: redacting every "a" would garble everything. */
const minSecretLength = 6;

/**
 * Refuses a secret that is part of the mark replacing it (say `REDACTED`): every redacted text
 * would show it, and replacing it again would never end.
 */
function refuseMarkLike(secret: string, forms: readonly string[]): void {
  for (const form of forms) {
    if (redactedMark.repeat(Math.ceil(form.length / redactedMark.length) + 1).includes(form)) {
      throw new TroupeError(
        'invalid_input',
        `a configured secret (${secret.length} characters long) is part of the mark "${redactedMark}" that replaces secrets, so it could not be hidden: choose another`,
      );
    }
  }
}

/**
 * The one sanitiser of everything troupe lets out (logs, events, HTTP replies, CLI output, the
 * inspector stream, stored errors). Its guarantee, for every configured secret of at least six
 * characters: a text it has redacted contains the secret in none of its forms (`secretForms`):
 * not as is, not with its whitespace collapsed (as one-line displays write it), not inside JSON
 * strings up to three deep (escaped as JSON.stringify, Python or PHP escape), not
 * percent-encoded (encodeURIComponent, encodeURI, a query value with `+` for spaces, either hex
 * case). Each occurrence becomes `[REDACTED]`, repeatedly, until none is left
 * (a mark next to the rest of a text can complete a secret again). Values under secret-looking
 * keys (`apiKey`, `token`, `password` …) and strings shaped like well-known keys (`sk-…`,
 * `Bearer …`, GitHub, AWS and Slack tokens, `?access_token=…` in a URL) go too, though only
 * configured secrets are promised in every form. A text streamed in pieces goes through
 * `stream()`, so that a secret split across two pieces is caught too.
 */
export class Redactor {
  readonly #secrets: readonly string[];
  /** Every form of every secret, longest first, so a secret that contains another is replaced whole. */
  readonly #forms: readonly string[];
  /**
   * Every form, and each as it reads inside a JSON string (escaping is character by character, so a
   * string holding a form holds this in its JSON); undefined when a form has a lone surrogate, which
   * JSON.stringify escapes or not depending on what is next to it: `leaves` then never vouches.
   */
  readonly #jsonForms: readonly string[] | undefined;

  /** Throws `invalid_input` for a secret that is part of `[REDACTED]` itself. */
  constructor(secrets: readonly (string | undefined)[] = []) {
    const usable = secrets.filter((secret): secret is string => secret !== undefined && secret.length >= minSecretLength);
    this.#secrets = [...new Set(usable)];
    const forms = new Set<string>();
    for (const secret of this.#secrets) {
      const ofSecret = secretForms(secret, minSecretLength);
      refuseMarkLike(secret, ofSecret);
      for (const form of ofSecret) forms.add(form);
    }
    this.#forms = [...forms].sort((a, b) => b.length - a.length);
    this.#jsonForms = this.#forms.some((form) => loneSurrogate.test(form))
      ? undefined
      : [...new Set(this.#forms.flatMap((form) => [form, JSON.stringify(form).slice(1, -1)]))];
  }

  /** A redactor of these secrets and `more` (the runtime's, plus the server's own token). */
  with(more: readonly (string | undefined)[]): Redactor {
    return new Redactor([...this.#secrets, ...more]);
  }

  text(text: string): string {
    let out = text;
    for (;;) {
      let next = out;
      for (const form of this.#forms) if (next.includes(form)) next = next.replaceAll(form, redactedMark);
      if (mayHoldShape.test(next)) for (const shape of secretShapes) next = next.replace(shape, redactedMark);
      // Ends: a secret completed again by a mark takes at least one character of the text with it.
      if (next === out) return out;
      out = next;
    }
  }

  /**
   * A JSON text, redacted as written, unless that would leave it invalid: escaping unrelated text
   * can put a secret's characters side by side (a secret ending in `\` before an escaped quote),
   * and a replacement across an escape breaks the JSON. Such a text is left as it is: its strings
   * were redacted before it was written. Anything else is redacted as `text` is.
   */
  json(text: string): string {
    const out = this.text(text);
    return out === text || parsesAsJson(out) || !parsesAsJson(text) ? out : text;
  }

  /**
   * Whether redacting the data `json` was written from (by JSON.stringify, or as canonical JSON:
   * no spaces) with `value`, `unknown` or `task` would leave it as it is, told from the text alone,
   * without walking the data: true when the text holds no form of a configured secret as
   * JSON.stringify escapes it inside a string, nothing a well-known key's shape starts with, and no
   * secret-looking key. False is not a finding, only a reason to redact the data.
   */
  leaves(json: string): boolean {
    const forms = this.#jsonForms;
    return forms !== undefined && !mayHoldSecretKeyOrShape.test(json) && !forms.some((form) => json.includes(form));
  }

  /** Whether `text` carries a configured secret in any of its forms. */
  reveals(text: string): boolean {
    return this.#forms.some((form) => text.includes(form));
  }

  /** A redactor for one text arriving in pieces (see RedactingStream). */
  stream(): RedactingStream {
    return new RedactingStream(this);
  }

  /** How many characters at the end of `text` are the start of some form of a secret (0 when none). */
  openTail(text: string): number {
    let open = 0;
    for (const form of this.#forms) {
      // Only a start longer than what is already held back can matter; the longest start wins.
      for (let start = Math.max(text.length - form.length + 1, 0); start < text.length - open; start += 1) {
        if (text.charCodeAt(start) === form.charCodeAt(0) && text.startsWith(form.slice(0, text.length - start), start)) {
          open = text.length - start;
          break;
        }
      }
    }
    return open;
  }

  value(value: JsonValue): JsonValue {
    if (typeof value === 'string') return this.text(value);
    if (Array.isArray(value)) return value.map((item) => this.value(item));
    if (value !== null && typeof value === 'object') {
      // Keys too: a model or a tool may key an object by anything, a secret included.
      return Object.fromEntries(
        Object.entries(value).map(([key, inner]) => [this.text(key), secretKey.test(key) && inner !== null ? redactedMark : this.value(inner)]),
      );
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
        this.text(key),
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
