/**
 * The system error code (`ECONNREFUSED`, `ENOTFOUND`, `UND_ERR_SOCKET`, …) somewhere in an error's
 * cause chain: the SDK wraps fetch's `TypeError('fetch failed')`, which wraps the socket's error
 * (an AggregateError when every address of a host refused). Undefined when there is none.
 */
export function networkCodeOf(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && typeof current === 'object' && current !== null; depth++) {
    const { code, cause, errors } = current as { code?: unknown; cause?: unknown; errors?: unknown };
    if (typeof code === 'string') return code;
    current = cause ?? (Array.isArray(errors) ? (errors[0] as unknown) : undefined);
  }
  return undefined;
}

/** The innermost message of an error's cause chain that says more than `fetch failed` (e.g. `connect ECONNREFUSED 127.0.0.1:9`). */
export function innermostMessageOf(error: unknown): string {
  let said = '';
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current instanceof Error; depth++) {
    if (current.message !== '') said = current.message;
    const { cause, errors } = current as { cause?: unknown; errors?: unknown };
    current = cause ?? (Array.isArray(errors) ? (errors[0] as unknown) : undefined);
  }
  return said;
}
