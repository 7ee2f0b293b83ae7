import { z } from 'zod';
import { parseOrThrow } from '../task/index.js';
import type { RemoteRole } from '../tools/index.js';
import { A2aRemote, A2aRemoteSchema } from './a2aRemote.js';

/** A role served by a remote A2A agent (docs/a2a.md, "A role served by a remote agent"). */
export const A2aRemoteRoleSchema = A2aRemoteSchema.extend({
  /** The role `delegate_task` names it by; its local Tasks go to `a2a-<role>`. */
  role: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,39}$/, 'must be 1–40 lower-case letters, digits, "_" or "-", starting with a letter or digit'),
  /** What agents of the role do (as a local role's description). */
  description: z.string().min(1).max(1024).optional(),
}).strict();

export type A2aRemoteRoleOptions = z.input<typeof A2aRemoteRoleSchema>;

/**
 * A role whose work a remote A2A agent does, for `createRuntime({ remoteRoles })`: `delegate_task`
 * with `role` set to its name sends the task to the remote (see `A2aRemote`: its progress on the
 * local bus as the Task `a2a.delegate` to `a2a-<role>`, the timeout, bounded retries), and the
 * remote's answer is the call's result. The delegating turn stopping (its Task canceled, its
 * agent terminated) cancels the remote task. A bad option is refused naming it.
 *
 * @example
 * const rt = await createRuntime({ remoteRoles: [a2aRemoteRole({ role: 'geography', url: 'http://127.0.0.1:4000' })] });
 */
export function a2aRemoteRole(input: A2aRemoteRoleOptions): RemoteRole {
  const options = parseOrThrow(A2aRemoteRoleSchema, input, 'a2aRemoteRole');
  const remote = new A2aRemote({ ...options, name: options.role }, 'a2aRemoteRole.role');
  return {
    role: options.role,
    description: options.description ?? `the remote A2A agent at ${options.url}`,
    location: options.url,
    delegate: (text, context, { timeoutMs }) => remote.run(text, context, timeoutMs),
  };
}
