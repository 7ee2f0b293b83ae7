import { z } from 'zod';
import { ErrorCodeSchema, TroupeError, describeError } from '../errors.js';
import type { CliEnv } from './cliIo.js';
import { readToken } from './environment.js';

/** Where a running `troupe serve` is looked for when neither `--url` nor `TROUPE_URL` says: its default address. */
const defaultServeUrl = 'http://127.0.0.1:3000';

const ErrorReplySchema = z.object({ error: z.object({ code: ErrorCodeSchema, message: z.string() }) });

/** A failure to reach the server at all: the address or the server to fix, like a bad setting. */
export class ServerUnreachable extends Error {}

/**
 * The HTTP API of a running `troupe serve`, for the commands that act on its live runtime
 * (`troupe approvals`, `approve`, `reject`): at `--url`, else `TROUPE_URL`, else
 * http://127.0.0.1:3000, with `TROUPE_TOKEN` as its bearer token when set.
 */
export class ServeClient {
  readonly url: string;
  readonly #token: string | undefined;

  constructor(option: string | undefined, env: CliEnv) {
    this.url = (option ?? env['TROUPE_URL']?.trim() ?? defaultServeUrl).replace(/\/+$/, '') || defaultServeUrl;
    this.#token = readToken(env);
  }

  /**
   * `method path` with `body` as JSON; the reply parsed by `schema`. An error reply throws the
   * TroupeError it carries (its code, its message); no answer throws `ServerUnreachable`.
   */
  async call<S extends z.ZodType>(method: 'GET' | 'POST', path: string, schema: S, body?: unknown): Promise<z.infer<S>> {
    let response: Response;
    try {
      response = await fetch(`${this.url}${path}`, {
        method,
        headers: {
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(this.#token === undefined ? {} : { authorization: `Bearer ${this.#token}` }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (error) {
      const cause = error instanceof Error && error.cause !== undefined ? describeError(error.cause) : describeError(error);
      throw new ServerUnreachable(`no troupe serve answered at ${this.url} (${cause}): start one, or give its address with --url or TROUPE_URL`);
    }
    const text = await response.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new TroupeError('internal', `${this.url}${path} answered ${response.status} with a body that is not JSON: is this a troupe serve?`);
    }
    if (!response.ok) {
      const refusal = ErrorReplySchema.safeParse(json);
      if (refusal.success) throw new TroupeError(refusal.data.error.code, refusal.data.error.message);
      throw new TroupeError('internal', `${this.url}${path} answered ${response.status}: is this a troupe serve?`);
    }
    return schema.parse(json);
  }
}
