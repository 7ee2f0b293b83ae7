import { createHash } from 'node:crypto';
import type { JsonValue, Redactor } from '../task/index.js';

/** Thrown by `plainJson` at what it does not write itself; `canonicalJson` then takes the general way. */
class NotPlain extends Error {}

const notPlain = new NotPlain();

function isPlainObject(value: object): boolean {
  const prototype = Object.getPrototypeOf(value) as unknown;
  return (prototype === Object.prototype || prototype === null) && typeof (value as { toJSON?: unknown }).toJSON !== 'function';
}

/**
 * The canonical JSON of plain data (plain objects and arrays less than `depthLeft` deep, strings,
 * numbers, booleans, null, undefined fields), written directly; undefined where JSON leaves a value
 * out. Throws `notPlain` at anything else, and at a key starting with a digit (an object enumerates
 * such keys first, which the general way keeps).
 */
function plainJson(value: unknown, depthLeft: number): string | undefined {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
    case 'bigint':
      throw notPlain;
    case 'object':
      break;
  }
  if (value === null) return 'null';
  if (depthLeft === 0) throw notPlain;
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += `${i === 0 ? '' : ','}${plainJson(value[i], depthLeft - 1) ?? 'null'}`;
    return `${out}]`;
  }
  if (!isPlainObject(value)) throw notPlain;
  const keys = Object.keys(value).sort();
  let out = '{';
  for (const key of keys) {
    const first = key.charCodeAt(0);
    if (first >= 48 && first <= 57) throw notPlain;
    const inner = plainJson((value as Record<string, unknown>)[key], depthLeft - 1);
    if (inner !== undefined) out += `${out.length === 1 ? '' : ','}${JSON.stringify(key)}:${inner}`;
  }
  return `${out}}`;
}

/**
 * `value` as canonical JSON when it is plain data nested less than `maxDepth` deep (see
 * `plainJson`), or undefined when it is not: what `canonicalJson` gives, without its general walk.
 */
function plainCanonicalJson(value: unknown, maxDepth: number): string | undefined {
  try {
    return plainJson(value, maxDepth);
  } catch (error) {
    if (error instanceof NotPlain) return undefined;
    throw error;
  }
}

/** Deep enough for any JSON troupe writes; deeper plain data takes the general way, as anything that is not plain does. */
const plainDepth = 256;

/**
 * `value` as JSON with every object's keys sorted and undefined fields left out: the same value
 * always gives the same text, whatever order its fields were built in. Plain data is written
 * directly; anything else (a `toJSON`, a typed array, keys that are array indices) the general way,
 * through JSON.stringify: both give the same text for the same value.
 */
export function canonicalJson(value: unknown): string {
  return plainCanonicalJson(value, plainDepth) ?? generalCanonicalJson(value);
}

function generalCanonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, field: unknown) => {
    if (field === null || typeof field !== 'object' || Array.isArray(field) || field instanceof Uint8Array) return field;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(field).sort()) sorted[key] = (field as Record<string, unknown>)[key];
    return sorted;
  });
}

/**
 * `canonicalJson` of `value` redacted (by `redactor.value`, or with `arguments`, by
 * `redactor.unknown` to its depth of 64, as a tool call's arguments are): the canonical JSON of the
 * value itself when it is plain data whose JSON the redactor `leaves` as it is, which spares the
 * redaction's walk and copy of the common value with nothing to hide.
 */
export function redactedCanonicalJson(value: unknown, redactor: Redactor, as: 'value' | 'arguments'): string {
  const plain = plainCanonicalJson(value, as === 'arguments' ? argumentsDepth : plainDepth);
  if (plain !== undefined && redactor.leaves(plain)) return plain;
  return canonicalJson(as === 'arguments' ? redactor.unknown(value, argumentsDepth) : redactor.value(value as JsonValue));
}

/** How deep a tool call's arguments are redacted (`Redactor.unknown`): deeper is cut. */
const argumentsDepth = 64;

/** The SHA-256 of `text`, hex: what a recording keys a request or a tool call by. */
export function digestOf(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
