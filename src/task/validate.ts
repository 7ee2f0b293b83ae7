import type { z } from 'zod';
import { ValidationError } from '../errors.js';

/** Joins a zod issue path the way users write it: `metadata.importance`, `items[2].name`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}

/**
 * Parses untrusted input, or throws a ValidationError naming the first bad field.
 * `what` prefixes the field so the message says where the value came from.
 */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, what = ''): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const inner = issue === undefined ? '' : formatPath(issue.path);
  const field = what === '' ? inner : inner === '' ? what : `${what}.${inner}`;
  const message = issue?.message ?? 'invalid value';
  throw new ValidationError(field, message, { cause: result.error });
}
