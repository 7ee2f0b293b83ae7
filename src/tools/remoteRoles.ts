import { z } from 'zod';
import { TroupeError } from '../errors.js';
import type { ToolContext, ToolResult } from './tool.js';

/**
 * An agent outside the society that `delegate_task` gives work to by role, as it would a local
 * agent (`createRuntime({ remoteRoles })`): a remote A2A agent (`a2aRemoteRole` from
 * `troupe/nodes`), or any other service that can take a task and answer it.
 */
export interface RemoteRole {
  /** The role `delegate_task` names it by. */
  readonly role: string;
  /** What it does, for the model (the role's description). */
  readonly description: string;
  /** Where it is, for people reading the log (a URL). */
  readonly location: string;
  /**
   * Gives it `text` for the tool call in `context` and resolves with its answer as the tool's
   * result (an error result when it failed). `timeoutMs`: the longest the call may wait, when the
   * model asked for less than the remote's own limit. Aborting `context.signal` takes the work back.
   */
  delegate(text: string, context: ToolContext, options: { readonly timeoutMs?: number }): Promise<ToolResult>;
}

/** A remote agent's role: what `delegate_task` names it by. */
const RemoteRoleSchema = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,39}$/, 'must be 1–40 lower-case letters, digits, "_" or "-", starting with a letter or digit');

/** The remote agents of a runtime by role, each checked, no role twice; refused naming the entry at fault. */
export function remoteRolesByName(given: readonly RemoteRole[] | undefined): ReadonlyMap<string, RemoteRole> {
  const byRole = new Map<string, RemoteRole>();
  for (const [index, remote] of (given ?? []).entries()) {
    const role = RemoteRoleSchema.safeParse(remote.role);
    if (!role.success) throw new TroupeError('invalid_input', `remoteRoles[${index}].role: ${role.error.issues[0]?.message ?? 'invalid'}`);
    if (typeof remote.delegate !== 'function') throw new TroupeError('invalid_input', `remoteRoles[${index}]: not a remote agent (use a2aRemoteRole)`);
    if (byRole.has(role.data)) throw new TroupeError('invalid_input', `remoteRoles[${index}].role: "${role.data}" is given twice`);
    byRole.set(role.data, remote);
  }
  return byRole;
}
