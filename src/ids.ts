import { randomBytes, randomUUID } from 'node:crypto';

/** Makes ids; injected so tests and replays can be deterministic. */
export interface IdGenerator {
  /** A fresh Task or session id. */
  task(): string;
  /** A fresh agent id, readable from its role name (`poet-3f9a2c41d07e8b65`). */
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

/**
 * Random bytes in an agent id. 64 bits keep ids of one role apart at any size a society
 * reaches: among a million agents of one role, the chance that two share an id is below
 * 3 in 100,000,000 (24 bits made a clash likely by a few thousand).
 */
const agentIdBytes = 8;

/** Ids from the system's cryptographic random source: UUIDs for Tasks, the role's slug and 64 random bits for agents. */
export const randomIds: IdGenerator = {
  task: () => randomUUID(),
  agent: (roleName) => `${slug(roleName)}-${randomBytes(agentIdBytes).toString('hex')}`,
};

/**
 * A new agent's id from `ids`, readable from its role's name unless the id would give away a
 * configured secret (`reveals`) in every Task the agent sends: then a plain `agent-…` one.
 */
export function agentIdFor(ids: IdGenerator, roleName: string, reveals: (id: string) => boolean): string {
  const id = ids.agent(roleName);
  return reveals(id) ? ids.agent('agent') : id;
}

/** Deterministic ids (`t1`, `t2`, … and `poet-1`, …) for tests and reproducible demos. */
export function sequentialIds(): IdGenerator {
  let tasks = 0;
  let agents = 0;
  return {
    task: () => `t${++tasks}`,
    agent: (roleName) => `${slug(roleName)}-${++agents}`,
  };
}
