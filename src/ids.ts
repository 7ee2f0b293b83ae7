import { randomBytes, randomUUID } from 'node:crypto';

/** Makes ids; injected so tests and replays can be deterministic. */
export interface IdGenerator {
  /** A fresh Task or session id. */
  task(): string;
  /** A fresh agent id, readable from its role name (`poet-3f9a2c`). */
  agent(roleName: string): string;
}

/** Lower-case letters, digits and dashes: safe in NATS subjects, URLs and file names. */
function slug(text: string): string {
  const cleaned = text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 24)
    .replace(/-+$/g, '');
  return cleaned === '' ? 'agent' : cleaned;
}

export const randomIds: IdGenerator = {
  task: () => randomUUID(),
  agent: (roleName) => `${slug(roleName)}-${randomBytes(3).toString('hex')}`,
};

/** Deterministic ids (`t1`, `t2`, … and `poet-1`, …) for tests and reproducible demos. */
export function sequentialIds(): IdGenerator {
  let tasks = 0;
  let agents = 0;
  return {
    task: () => `t${++tasks}`,
    agent: (roleName) => `${slug(roleName)}-${++agents}`,
  };
}
