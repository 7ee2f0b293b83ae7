import { createHash } from 'node:crypto';

/**
 * `value` as JSON with every object's keys sorted and undefined fields left out: the same value
 * always gives the same text, whatever order its fields were built in.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, field: unknown) => {
    if (field === null || typeof field !== 'object' || Array.isArray(field) || field instanceof Uint8Array) return field;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(field).sort()) sorted[key] = (field as Record<string, unknown>)[key];
    return sorted;
  });
}

/** The SHA-256 of `text`, hex: what a recording keys a request or a tool call by. */
export function digestOf(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
