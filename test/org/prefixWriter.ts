// Child process of the prefix test: requests numbered writes in order, many in flight at once
// (bursts of one event-loop turn, several transactions committing), until it is killed. Prints
// `ack <n>` once write n resolved (that is, once it was acknowledged durable).
// Usage: node --import tsx test/org/prefixWriter.ts <dir> <round>
import { systemClock } from '../../src/clock.js';
import { createLogger } from '../../src/logger.js';
import { openOrgStore } from '../../src/org/index.js';
import { createTask } from '../../src/task/index.js';

const [dir, round] = process.argv.slice(2);
if (dir === undefined || round === undefined) throw new Error('usage: prefixWriter.ts <dir> <round>');

const store = await openOrgStore({ dir, logger: createLogger('warn') });
await store.createRole({ id: `r-${round}`, name: 'r', prompt: 'p', createdBy: 'user' });
// Writes to a pipe are synchronous on Linux, so a printed line is in the pipe before any kill.
const print = (line: string): void => void process.stdout.write(`${line}\n`);
print('ready');

const task = (id: string): ReturnType<typeof createTask> =>
  createTask(
    { id, from: 'a', to: 'user', action: 'execute', parameters: { text: id } },
    { ids: { task: () => id, agent: (name) => name }, clock: systemClock },
  );

/**
 * Write n: now and then an agent, then its termination (a `checked` write, staged only once
 * every earlier write has committed); else an append to one of three sequences.
 */
function write(n: number): Promise<unknown> {
  if (n % 20 === 7) return store.createAgent({ id: `a-${round}-${n}`, roleId: `r-${round}`, parentAgentId: null });
  if (n % 20 === 17) return store.markTerminated({ agentId: `a-${round}-${n - 10}`, terminatedBy: 'user', reason: String(n) });
  if (n % 3 === 0) return store.appendMessage(`log-${round}`, task(`m-${round}-${n}`));
  if (n % 3 === 1) return store.appendInbox(task(`i-${round}-${n}`));
  return store.appendConversation(`c-${round}`, [{ role: 'user', content: String(n) }]);
}

for (let n = 0, burst = 0; ; burst++) {
  for (const end = n + 25; n < end; n++) {
    const id = n;
    void write(id).then(() => print(`ack ${id}`));
  }
  // The next burst is another turn, so another transaction; now and then wait, to bound the writes in flight.
  await (burst % 8 === 7 ? store.flushed() : new Promise((resolve) => setImmediate(resolve)));
}
