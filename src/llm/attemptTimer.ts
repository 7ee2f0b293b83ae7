import { APIConnectionTimeoutError } from 'openai';
import type { Clock, TimerHandle } from '../clock.js';

/**
 * The two timeouts of one attempt at a model call, on the injected clock: the whole attempt
 * (`timeoutMs`) and, once the response has begun, the silence between network reads
 * (`idleTimeoutMs`). When one fires, `expired` says which, as the SDK's
 * `APIConnectionTimeoutError` (so the retry layer retries it as it retries a network error), and
 * `onExpire` stops whatever is reading the response.
 *
 * One timer serves both: it is due at the nearer of the two deadlines, and when it fires early
 * (a read came since) it is set again for the rest. A read only notes the time: this runs once
 * per network read, and a model call pays for one timer, not one per read.
 */
export class AttemptTimer {
  readonly #clock: Clock;
  readonly #timeoutMs: number;
  readonly #idleTimeoutMs: number;
  readonly #deadline: number;
  #timer: TimerHandle | undefined;
  /** When the last read came; undefined until the response's headers are in (no silence is counted before). */
  #lastRead: number | undefined;
  #expired: APIConnectionTimeoutError | undefined;
  /** Stops what reads the response (cancels its body); set by whoever reads it. */
  onExpire: (() => void) | undefined;

  constructor(clock: Clock, limits: { readonly timeoutMs: number; readonly idleTimeoutMs: number }) {
    this.#clock = clock;
    this.#timeoutMs = limits.timeoutMs;
    this.#idleTimeoutMs = limits.idleTimeoutMs;
    this.#deadline = clock.now() + limits.timeoutMs;
    this.#timer = clock.setTimeout(this.#check, Math.min(limits.timeoutMs, limits.idleTimeoutMs));
  }

  /** The timeout that ended the attempt, if one did. */
  get expired(): APIConnectionTimeoutError | undefined {
    return this.#expired;
  }

  /** The attempt's timeout as an error, for a wait the SDK timed out itself (the headers, on its own timer). */
  attemptTimeout(): APIConnectionTimeoutError {
    return new APIConnectionTimeoutError({ message: `no complete reply within ${this.#timeoutMs} ms (timeoutMs)` });
  }

  /** The response's headers or a network read arrived: silence is counted from now. */
  readonly alive = (): void => {
    this.#lastRead = this.#clock.now();
  };

  /** The attempt is over: its timer stops. */
  dispose(): void {
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  readonly #check = (): void => {
    this.#timer = undefined;
    const now = this.#clock.now();
    if (now >= this.#deadline) {
      this.#expire(this.attemptTimeout());
      return;
    }
    const silentMs = this.#lastRead === undefined ? 0 : now - this.#lastRead;
    if (silentMs >= this.#idleTimeoutMs) {
      this.#expire(new APIConnectionTimeoutError({ message: `the stream was silent for ${silentMs} ms (idleTimeoutMs)` }));
      return;
    }
    this.#timer = this.#clock.setTimeout(this.#check, Math.min(this.#deadline - now, this.#idleTimeoutMs - silentMs));
  };

  #expire(error: APIConnectionTimeoutError): void {
    this.#expired = error;
    this.onExpire?.();
  }
}
