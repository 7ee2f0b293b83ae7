import fc from 'fast-check';
import { ValidationError } from '../../src/errors.js';
import { type EdgeType, type EventStatus, type GraphMemory, GraphRuleError } from '../../src/graph/index.js';

// Random sequences of changes to a graph, over a small pool of ids (`n0`…`n4`), for the property
// tests: duplicates, unknown nodes, cycles and second parents all happen often.

export const types: readonly EdgeType[] = ['depends_on', 'part_of', 'references', 'produces'];
const statuses: readonly EventStatus[] = ['pending', 'in_progress', 'done', 'archived'];

export type Op =
  | { readonly op: 'addEvent'; readonly id: number; readonly status: EventStatus }
  | { readonly op: 'addNote'; readonly id: number }
  | { readonly op: 'remove'; readonly id: number }
  | { readonly op: 'status'; readonly id: number; readonly status: EventStatus }
  | { readonly op: 'link'; readonly from: number; readonly to: number; readonly type: EdgeType; readonly weight: number }
  | { readonly op: 'unlink'; readonly from: number; readonly to: number; readonly type: EdgeType };

export const id = fc.nat(4);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.record({ op: fc.constant('addEvent' as const), id, status: fc.constantFrom(...statuses) }), weight: 3 },
  { arbitrary: fc.record({ op: fc.constant('addNote' as const), id }), weight: 2 },
  { arbitrary: fc.record({ op: fc.constant('remove' as const), id }), weight: 1 },
  { arbitrary: fc.record({ op: fc.constant('status' as const), id, status: fc.constantFrom(...statuses) }), weight: 1 },
  {
    arbitrary: fc.record({ op: fc.constant('link' as const), from: id, to: id, type: fc.constantFrom(...types), weight: fc.integer({ min: 1, max: 5 }) }),
    weight: 8,
  },
  { arbitrary: fc.record({ op: fc.constant('unlink' as const), from: id, to: id, type: fc.constantFrom(...types) }), weight: 2 },
);
const addArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant('addEvent' as const), id, status: fc.constantFrom(...statuses) }),
  fc.record({ op: fc.constant('addNote' as const), id }),
);
// A few nodes first, so most runs reach states where every rule can bite (a second parent, a cycle).
export const opsArb = fc
  .tuple(fc.array(addArb, { minLength: 3, maxLength: 6 }), fc.array(opArb, { minLength: 10, maxLength: 80, size: 'medium' }))
  .map(([adds, ops]) => [...adds, ...ops]);

/** Whether a refusal is one of the graph's: a broken rule or a bad field. Anything else is a fault, thrown on. */
export function isRefusal(error: unknown): error is GraphRuleError | ValidationError {
  return error instanceof GraphRuleError || error instanceof ValidationError;
}

/** Applies `op`; true when the graph accepted it. */
export async function apply(memory: GraphMemory, op: Op): Promise<boolean> {
  const done = (promise: Promise<unknown>): Promise<boolean> =>
    promise.then(
      () => true,
      (error: unknown) => {
        if (isRefusal(error)) return false;
        throw error;
      },
    );
  switch (op.op) {
    case 'addEvent':
      return done(memory.addEvent({ id: `n${op.id}`, content: `event ${op.id}`, status: op.status }));
    case 'addNote':
      return done(memory.addNote({ id: `n${op.id}`, content: `note ${op.id}` }));
    case 'remove':
      return done(memory.removeNode(`n${op.id}`));
    case 'status':
      return done(memory.updateNode(`n${op.id}`, { status: op.status }));
    case 'link':
      return done(memory.link({ from: `n${op.from}`, to: `n${op.to}`, type: op.type, weight: op.weight }));
    case 'unlink':
      return done(memory.unlink({ from: `n${op.from}`, to: `n${op.to}`, type: op.type }));
    default:
      return op satisfies never;
  }
}
