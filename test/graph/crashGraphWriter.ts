// Child process of the graph crash test: adds events and notes and links them (one by one and in
// batches) in a loop until it is killed, printing a line for each change only after the awaited
// change returned (that is, after it was acknowledged durable). Several writers run at once, so commits are shared.
// Usage: node test/graph/crashGraphWriter.ts <envDir> <round>
import { join } from 'node:path';
import { open } from 'lmdb';
import { openGraphMemory } from '../../src/graph/index.js';
import { createLogger } from '../../src/logger.js';

const [dir, round] = process.argv.slice(2);
if (dir === undefined || round === undefined) throw new Error('usage: crashGraphWriter.ts <envDir> <round>');

const db = open({ path: join(dir, 'env'), noSubdir: false, maxDbs: 8 });
const memory = await openGraphMemory({ db, ownerId: 'agent-1', logger: createLogger('warn') });
// Writes to a pipe are synchronous on Linux, so a printed line is in the pipe before any kill.
const ack = (...fields: string[]): void => void process.stdout.write(`${fields.join(' ')}\n`);
ack('ready');

let next = 0;

async function writer(): Promise<never> {
  let previous: string | null = null;
  for (;;) {
    const n = next++;
    const event = `e-${round}-${n}`;
    const note = `n-${round}-${n}`;
    await memory.addEvent({ id: event, content: `event ${n}` });
    ack('node', event);
    await memory.addNote({ id: note, content: `note ${n}` });
    ack('node', note);
    await memory.link({ from: event, to: note, type: 'produces' });
    ack('edge', event, 'produces', note);
    if (previous !== null) {
      await memory.link({ from: event, to: previous, type: 'depends_on' });
      ack('edge', event, 'depends_on', previous);
      // A batch: one transaction, acknowledged (each edge it added) once it is durable.
      const batch = [
        { from: note, to: event, type: 'references' },
        { from: event, to: note, type: 'references' },
        { from: note, to: previous, type: 'references' },
      ] as const;
      const outcomes = await memory.linkMany(batch);
      batch.forEach(({ from, to, type }, i) => {
        if (outcomes[i]?.ok === true) ack('edge', from, type, to);
      });
    }
    if (n % 4 === 3) {
      // A removal takes the node's edges with it in the same transaction. Announced first: a kill
      // between its commit and its acknowledgement leaves the note gone, unacknowledged.
      ack('removing', note);
      await memory.removeNode(note);
      ack('removed', note);
    }
    previous = event;
  }
}

await Promise.all([writer(), writer(), writer()]);
