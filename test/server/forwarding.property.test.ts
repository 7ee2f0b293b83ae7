import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { startConsole } from '../../src/cli/serveConsole.js';
import type { Runtime } from '../../src/runtime/index.js';
import type { Task } from '../../src/task/index.js';
import { ScriptedModel } from '../../src/testing.js';
import { type MessagesBody, type Served, answered, call, serve } from '../support/httpServerFixture.js';

// Properties 4 and 5 of seed 004, through real sockets: HTTP forwards a message exactly as the
// console does, and GET /api/messages gives back everything the user received, in order.

const alwaysOk = (): ScriptedModel => new ScriptedModel(Array.from({ length: 5_000 }, () => ({ text: 'ok' })));

type Target = 'root' | 'worker' | 'gone' | 'nobody' | 'user';
type Message = { readonly kind: 'submit'; readonly text: string } | { readonly kind: 'send'; readonly target: Target; readonly text: string };

// One line of text that is not blank and, for a submit, does not start with "@" (which would address an agent on the console).
const textArb = fc
  .string({ minLength: 1, maxLength: 40 })
  .filter((text) => !/[\r\n\u2028\u2029]/.test(text) && text.trim() !== '' && !text.trim().startsWith('@'));
const messageArb: fc.Arbitrary<Message> = fc.oneof(
  fc.record({ kind: fc.constant('submit' as const), text: textArb }),
  fc.record({ kind: fc.constant('send' as const), target: fc.constantFrom<Target>('root', 'worker', 'gone', 'nobody', 'user'), text: textArb }),
);

/** A society with a live worker and a terminated agent; `ids` names the real agent behind each target. */
async function society(served: Served): Promise<Record<Target, string>> {
  const worker = await served.rt.spawn({ role: 'root' });
  const gone = await served.rt.spawn({ role: 'root' });
  await served.rt.terminate(gone, { by: 'user' });
  return { root: 'root', worker, gone, nobody: 'nobody', user: 'user' };
}

/** What one message led to, with the runtime's own ids replaced by the targets' names. */
type Outcome = { readonly accepted: Record<string, unknown> } | { readonly refused: string };

function shape(task: Task, names: Record<Target, string>): Record<string, unknown> {
  const alias = Object.fromEntries(Object.entries(names).map(([name, id]) => [id, name]));
  return { from: task.from, to: alias[task.to] ?? task.to, action: task.action, status: task.status, parameters: task.parameters, parentId: task.parentId };
}

/** A refusal's message with the runtime's agent ids replaced by the targets' names. */
function refusal(message: string, names: Record<Target, string>): Outcome {
  let out = message;
  for (const [name, id] of Object.entries(names)) out = out.replaceAll(`"${id}"`, `"${name}"`);
  return { refused: out };
}

/** The Task the user published with `id`, checked to be the only one published for it. */
function published(seen: readonly Task[], id: string): Task {
  const matching = seen.filter((task) => task.from === 'user' && task.id === id);
  expect(matching).toHaveLength(1);
  return matching[0] as Task;
}

async function throughHttp(served: Served, names: Record<Target, string>, messages: readonly Message[]): Promise<Outcome[]> {
  const seen: Task[] = [];
  served.rt.bus.on('*').subscribe((task) => seen.push(task));
  const outcomes: Outcome[] = [];
  for (const message of messages) {
    const reply =
      message.kind === 'submit'
        ? await call<{ taskId?: string; error?: { message: string } }>(served.url, '/api/submit', { json: { text: message.text } })
        : await call<{ messageId?: string; error?: { message: string } }>(served.url, '/api/send', {
            json: { agentId: names[message.target], text: message.text },
          });
    const id = 'taskId' in reply.body ? reply.body.taskId : 'messageId' in reply.body ? reply.body.messageId : undefined;
    outcomes.push(id === undefined ? refusal(reply.body.error?.message ?? '', names) : { accepted: shape(published(seen, id), names) });
  }
  return outcomes;
}

async function throughConsole(rt: Runtime, names: Record<Target, string>, messages: readonly Message[]): Promise<Outcome[]> {
  const seen: Task[] = [];
  rt.bus.on('*').subscribe((task) => seen.push(task));
  const input = new PassThrough();
  const acks: string[] = [];
  let wake = (): void => undefined;
  const console_ = startConsole(rt, {
    input,
    output: {
      write: (text: string) => {
        if (/^(→ |troupe: )/.test(text)) acks.push(text.trimEnd());
        wake();
      },
    },
  });
  const outcomes: Outcome[] = [];
  for (const message of messages) {
    const before = acks.length;
    input.write(`${message.kind === 'submit' ? '' : `@${names[message.target]} `}${message.text}\n`);
    while (acks.length === before) await new Promise<void>((resolve) => (wake = resolve));
    const ack = acks[before] ?? '';
    const id = /task (\S+)$/.exec(ack)?.[1];
    outcomes.push(
      ack.startsWith('troupe: ') || id === undefined ? refusal(ack.slice('troupe: '.length), names) : { accepted: shape(published(seen, id), names) },
    );
  }
  console_.close();
  return outcomes;
}

describe('HTTP forwarding (seed 004, properties 4 and 5)', () => {
  // 100 runs over real LMDB / HTTP: generous on a loaded machine.
  it('property 4: HTTP forwards any message as the console does, and returns the id of the Task it sent', { timeout: 180_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(messageArb, { minLength: 1, maxLength: 6 }), async (messages) => {
        const http = await serve({ memory: true, model: alwaysOk() });
        const terminal = await serve({ memory: true, model: alwaysOk() });
        try {
          const viaHttp = await throughHttp(http, await society(http), messages);
          const viaConsole = await throughConsole(terminal.rt, await society(terminal), messages);
          expect(viaHttp).toEqual(viaConsole);
          expect(viaHttp.filter((outcome) => 'accepted' in outcome)).toHaveLength(
            messages.filter((message) => message.kind === 'submit' || message.target === 'root' || message.target === 'worker').length,
          );
        } finally {
          await http.close();
          await terminal.close();
        }
      }),
      { numRuns: 100 },
    );
  });

  // 100 runs over real LMDB / HTTP: generous on a loaded machine.
  it(
    'property 5: GET /api/messages/:taskId returns every message the user received for the task, in order, however it is paged',
    { timeout: 180_000 },
    async () => {
      const served = await serve({ model: alwaysOk() });
      try {
        await fc.assert(
          fc.asyncProperty(fc.array(textArb, { maxLength: 5 }), fc.integer({ min: 1, max: 4 }), async (followUps, pageSize) => {
            const received: Task[] = [];
            const stop = served.rt.onOutput((task) => received.push(task));
            const { taskId } = (await call<{ taskId: string }>(served.url, '/api/submit', { json: { text: 'start' } })).body;
            const sent = [taskId];
            for (const text of followUps) {
              sent.push((await call<{ messageId: string }>(served.url, '/api/send', { json: { agentId: 'root', text, taskId } })).body.messageId);
            }
            for (const id of sent) await answered(served.rt, id);
            stop();
            const key = (task: Task): string => `${task.id}:${task.status}:${task.createdAt}`;
            const expected = received.filter((task) => task.sessionId === taskId).map(key);

            const whole = await call<MessagesBody>(served.url, `/api/messages/${taskId}?limit=1000`);
            expect(whole.body.messages.map(key)).toEqual(expected);
            expect(whole.body.total).toBe(expected.length);
            const paged: string[] = [];
            for (let offset = 0; offset < whole.body.total; offset += pageSize) {
              paged.push(...(await call<MessagesBody>(served.url, `/api/messages/${taskId}?offset=${offset}&limit=${pageSize}`)).body.messages.map(key));
            }
            expect(paged).toEqual(expected);
          }),
          { numRuns: 100 },
        );
      } finally {
        await served.close();
      }
    },
  );
});
