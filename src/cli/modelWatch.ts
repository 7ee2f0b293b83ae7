import { type Logger } from '../logger.js';
import { type ModelClient, type RetryNotice, RetryingModel, defaultRetryPolicy, isSetupFailure } from '../llm/index.js';

/**
 * The CLI's retry layer around its model (the runtime is then given `retry: false`), so that the
 * command hears what the schedule does: each retry (for the status line) and each call given up
 * on, the first setup failure among them kept (unreachable, key refused, not found, not a
 * stream) so that `troupe run` can exit 2, as for any other bad environment.
 */
export class ModelWatch {
  readonly model: ModelClient;
  #setupFailure: unknown;

  constructor(inner: ModelClient, deps: { readonly logger: Logger; readonly onRetry: (notice: RetryNotice) => void }) {
    this.model = new RetryingModel(inner, defaultRetryPolicy, {
      logger: deps.logger,
      onRetry: deps.onRetry,
      onGiveUp: (error) => {
        if (this.#setupFailure === undefined && isSetupFailure(error)) this.#setupFailure = error;
      },
    });
  }

  /** The first call given up on for a setup problem, if any. */
  get setupFailure(): unknown {
    return this.#setupFailure;
  }
}

/** A retry as the status line shows it: `model retry 1/3 in 2 s: HTTP 503 server_error: overloaded`. */
export function describeRetry(notice: RetryNotice): string {
  const seconds = Math.round(notice.delayMs / 100) / 10;
  return `model retry ${notice.attempt}/${notice.of} in ${seconds} s: ${notice.reason}`;
}
