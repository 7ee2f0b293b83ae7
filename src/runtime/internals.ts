import { TroupeError } from '../errors.js';
import type { Society } from './society/society.js';
import type { UserEndpoint } from './userEndpoint.js';

/** The parts of a runtime its public API does not show: for troupe's own tests and the narrow test view. */
export interface RuntimeInternals {
  readonly society: Society;
  readonly user: UserEndpoint;
}

// Keyed by the runtime object, so this module need not know the Runtime class (which registers here).
const internals = new WeakMap<object, RuntimeInternals>();

/** Called once by each runtime as it is built. */
export function registerInternals(runtime: object, parts: RuntimeInternals): void {
  internals.set(runtime, parts);
}

/**
 * The society and user endpoint inside a runtime (live agents with their contexts and actors,
 * the organisation's records, the user's inbox): for troupe's own tests that must look inside.
 *
 * @internal
 */
export function internalsOf(runtime: object): RuntimeInternals {
  const parts = internals.get(runtime);
  if (parts === undefined) throw new TroupeError('invalid_input', 'not a runtime made by createRuntime');
  return parts;
}
