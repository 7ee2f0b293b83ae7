import { z } from 'zod';
import { TroupeError } from '../errors.js';
import type { RemoteRole } from './tool.js';

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
