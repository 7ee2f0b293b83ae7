// Child process of the crash test: makes org changes in a loop until it is killed, printing a
// line for each write only after the awaited write returned (that is, after it was acknowledged).
// Usage: node --import tsx test/org/crashWriter.ts <dir> <round>
import { systemClock } from '../../src/clock.js';
import { createLogger } from '../../src/logger.js';
import { openOrgStore } from '../../src/org/index.js';
import { createTask } from '../../src/task/index.js';

const [dir, round] = process.argv.slice(2);
if (dir === undefined || round === undefined) throw new Error('usage: crashWriter.ts <dir> <round>');

const store = await openOrgStore({ dir, logger: createLogger('warn') });
// Writes to a pipe are synchronous on Linux, so a printed line is in the pipe before any kill.
const ack = (...fields: (string | number)[]): void => void process.stdout.write(`${fields.join(' ')}\n`);
ack('ready');

let next = 0;

/** One of several concurrent writers, so acknowledged writes also come from shared commits. */
async function writer(): Promise<never> {
  let parent: string | null = null;
  for (;;) {
    const n = next++;
    const id = `${round}-${n}`;
    await store.createRole({ id: `r-${id}`, name: `role ${id}`, prompt: 'You work.', createdBy: 'user' });
    ack('role', `r-${id}`);
    await store.createAgent({ id: `a-${id}`, roleId: `r-${id}`, parentAgentId: parent });
    ack('agent', `a-${id}`);
    const task = createTask(
      { id: `t-${id}`, from: `a-${id}`, to: 'user', action: 'execute', parameters: { text: `result ${id}` } },
      { ids: { task: () => `t-${id}`, agent: (name) => name }, clock: systemClock },
    );
    await store.appendInbox(task);
    ack('inbox', `t-${id}`);
    await store.appendMessage(`t-${id}`, task);
    ack('message', `t-${id}`);
    const length = await store.appendConversation(`a-${id}`, [
      { role: 'user', content: `do ${id}` },
      { role: 'assistant', content: `done ${id}`, toolCalls: [] },
    ]);
    ack('conversation', `a-${id}`, length);
    if (n % 3 === 0) {
      await store.markTerminated({ agentId: `a-${id}`, terminatedBy: 'user', reason: 'crash test' });
      ack('terminated', `a-${id}`);
      parent = null;
    } else {
      parent = `a-${id}`;
    }
  }
}

await Promise.all([writer(), writer(), writer()]);
