import { ValidationError } from '../errors.js';

/**
 * An action pattern: `*` (every action), `prefix.*` (every action under a prefix, at any
 * depth) or an exact action name.
 */
export type ActionPattern =
  { readonly kind: 'all' } | { readonly kind: 'prefix'; readonly prefix: string } | { readonly kind: 'exact'; readonly action: string };

const word = '[a-z][a-z0-9_]*';
const exactRe = new RegExp(`^${word}(\\.${word})*$`);
const prefixRe = new RegExp(`^(${word}(\\.${word})*)\\.\\*$`);

export function parsePattern(pattern: string): ActionPattern {
  if (pattern === '*') return { kind: 'all' };
  const prefix = prefixRe.exec(pattern);
  if (prefix?.[1] !== undefined) return { kind: 'prefix', prefix: prefix[1] };
  if (exactRe.test(pattern)) return { kind: 'exact', action: pattern };
  throw new ValidationError('pattern', `"${pattern}" is not "*", "prefix.*" or a dotted action name`);
}

/** The `prefix.*` keys an action falls under, shortest first: `a.b.c` → `a`, `a.b`. */
export function prefixesOf(action: string): string[] {
  const out: string[] = [];
  let at = action.indexOf('.');
  while (at !== -1) {
    out.push(action.slice(0, at));
    at = action.indexOf('.', at + 1);
  }
  return out;
}

export function matches(pattern: ActionPattern, action: string): boolean {
  switch (pattern.kind) {
    case 'all':
      return true;
    case 'prefix':
      return action.startsWith(`${pattern.prefix}.`);
    case 'exact':
      return action === pattern.action;
    default: {
      const never: never = pattern;
      return never;
    }
  }
}
