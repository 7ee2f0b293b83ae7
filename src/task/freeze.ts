/** Freezes a plain JSON-like value and everything inside it. A part already frozen is taken as frozen to its depths. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value as Record<string, unknown>)) deepFreeze(inner);
  }
  return value;
}

/**
 * `deepFreeze` that also walks parts already frozen: a zod schema's `.readonly()` freezes only the
 * top of what it returns, so its output is frozen but not to its depths.
 */
export function deepFreezeAll<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    Object.freeze(value);
    for (const inner of Object.values(value as Record<string, unknown>)) deepFreezeAll(inner);
  }
  return value;
}
