import { APIConnectionTimeoutError } from 'openai';
import { onAbort } from '../abort.js';
import type { Clock, TimerHandle } from '../clock.js';

/**
 * The two timeouts of one attempt at a model call, on the injected clock: the whole attempt
 * (`timeoutMs`) and, once the response has begun, the silence between network reads
 * (`idleTimeoutMs`). Its `signal` is what the request is sent with: it aborts when the caller's
 * signal does, or when a timeout fires, and then `expired` says which, as the SDK's
 * `APIConnectionTimeoutError`, so the retry layer retries it as it retries a network error.
 */
export class AttemptTimer {
  readonly #controller = new AbortController();
  readonly #clock: Clock;
  readonly #idleTimeoutMs: number;
  readonly #attempt: TimerHandle;
  #idle: TimerHandle | undefined;
  #lastRead = 0;
  #expired: APIConnectionTimeoutError | undefined;
  #stopWatching: () => void = () => undefined;

  constructor(clock: Clock, limits: { readonly timeoutMs: number; readonly idleTimeoutMs: number }, callerSignal?: AbortSignal) {
    this.#clock = clock;
    this.#idleTimeoutMs = limits.idleTimeoutMs;
    if (callerSignal !== undefined) this.#stopWatching = onAbort(callerSignal, () => this.#controller.abort(callerSignal.reason));
    this.#attempt = clock.setTimeout(() => this.#expire(`no complete reply within ${limits.timeoutMs} ms (timeoutMs)`), limits.timeoutMs);
  }

  /** Aborts the attempt's request when the caller gives up or a timeout fires. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** The timeout that ended the attempt, if one did. */
  get expired(): APIConnectionTimeoutError | undefined {
    return this.#expired;
  }

  /**
   * The response's headers or a network read arrived: silence is counted from now. A read only
   * notes the time (this runs once per read); the idle timer, when due, checks how long it has
   * really been and waits again for the rest.
   */
  readonly alive = (): void => {
    this.#lastRead = this.#clock.now();
    this.#idle ??= this.#clock.setTimeout(this.#checkIdle, this.#idleTimeoutMs);
  };

  /** The attempt is over: its timers stop, and the caller's signal is no longer watched. */
  dispose(): void {
    this.#clock.clearTimeout(this.#attempt);
    if (this.#idle !== undefined) this.#clock.clearTimeout(this.#idle);
    this.#stopWatching();
  }

  readonly #checkIdle = (): void => {
    const silentMs = this.#clock.now() - this.#lastRead;
    if (silentMs >= this.#idleTimeoutMs) this.#expire(`the stream was silent for ${silentMs} ms (idleTimeoutMs)`);
    else this.#idle = this.#clock.setTimeout(this.#checkIdle, this.#idleTimeoutMs - silentMs);
  };

  #expire(message: string): void {
    if (this.#controller.signal.aborted) return;
    this.#expired = new APIConnectionTimeoutError({ message });
    this.dispose();
    this.#controller.abort(this.#expired);
  }
}
