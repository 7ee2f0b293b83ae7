import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';
import { z } from 'zod';
import { type ChatRequest, type ModelClient, ScriptedModel } from '../../src/llm/index.js';
import { streamReply } from '../../src/llm/scriptedReply.js';
import { defineTool } from '../../src/tools/index.js';

/** What the last user message asks: `run <tool> <json arguments>`, or anything else, answered `answer: <text>`. */
function lastUserText(request: ChatRequest): string {
  const user = [...request.messages].reverse().find((message) => message.role === 'user');
  return user?.content ?? '';
}

const embedder = new ScriptedModel([]);

/**
 * A model whose reply follows the request: a message containing `run <tool> {json}` calls that
 * tool, then answers `done: <its result>`; any other message is answered `answer: <message>`;
 * with `gates`, `hold model <gate>` holds the model call until the gate opens (or the call is aborted).
 * Many tests can share one runtime, since no reply depends on a script's order.
 */
export function commandModel(gates?: Gates): ModelClient {
  return {
    name: 'commands',
    scripted: true,
    async *chat(request, options) {
      const last = request.messages.at(-1);
      if (last?.role === 'tool') {
        yield* streamReply({ text: `done: ${last.content}` }, options?.signal);
        return;
      }
      const text = lastUserText(request);
      const command = /run ([a-z0-9_]+)(?: (\{.*\}))?/.exec(text);
      if (command?.[1] === undefined) {
        const hold = /hold model (\w+)/.exec(text)?.[1];
        if (hold !== undefined && gates !== undefined) await gates.hold(hold, options?.signal);
        yield* streamReply({ text: `answer: ${text}` }, options?.signal);
        return;
      }
      yield* streamReply({ toolCalls: [{ name: command[1], arguments: command[2] ?? '{}' }] }, options?.signal);
    },
    embed: (texts) => embedder.embed(texts),
  };
}

interface Deferred<T> {
  readonly promise: Promise<T>;
  readonly resolve: (value: T) => void;
}

function deferred<T>(): Deferred<T> {
  let resolve: (value: T) => void = () => undefined;
  const promise = new Promise<T>((settle) => (resolve = settle));
  return { promise, resolve };
}

/** Gates the `wait_gate` tool waits on, by name: a test opens one when it wants the call to finish. */
export class Gates {
  readonly #open = new Map<string, () => void>();
  readonly #waits = new Map<string, Promise<void>>();

  wait(name: string): Promise<void> {
    let wait = this.#waits.get(name);
    if (wait === undefined) {
      wait = new Promise<void>((resolve) => this.#open.set(name, resolve));
      this.#waits.set(name, wait);
    }
    return wait;
  }

  open(name: string): void {
    void this.wait(name);
    this.#open.get(name)?.();
  }

  readonly #held = new Map<string, { started: Deferred<void>; aborted: Deferred<unknown> }>();

  #holding(name: string) {
    let held = this.#held.get(name);
    if (held === undefined) this.#held.set(name, (held = { started: deferred(), aborted: deferred() }));
    return held;
  }

  /** Holds a model call on gate `name` until it opens; an abort of `signal` ends it, as it would a real call. */
  async hold(name: string, signal: AbortSignal | undefined): Promise<void> {
    const held = this.#holding(name);
    held.started.resolve();
    await new Promise<void>((resolve, reject) => {
      void this.wait(name).then(resolve);
      signal?.addEventListener('abort', () => {
        held.aborted.resolve(signal.reason);
        reject(signal.reason as Error);
      });
    });
  }

  /** Resolves once a model call is held on gate `name`. */
  untilHeld(name: string): Promise<void> {
    return this.#holding(name).started.promise;
  }

  /** Resolves with the abort's reason once the call held on gate `name` is aborted. */
  untilAborted(name: string): Promise<unknown> {
    return this.#holding(name).aborted.promise;
  }
}

/** The tools of the A2A tests: one that makes artifacts, one that waits for approval, one that waits for a gate. */
export function a2aTools(gates: Gates) {
  return [
    defineTool({
      name: 'make_artifacts',
      description: 'Makes a text, a file and a data artifact',
      parameters: z.object({}),
      execute: async () => ({
        content: 'made three artifacts',
        artifacts: [
          { name: 'notes.txt', mediaType: 'text/plain', content: 'plain notes' },
          { name: 'chart.png', mediaType: 'image/png', content: new Uint8Array([137, 80, 78, 71]) },
          { name: 'figures.json', mediaType: 'application/json', content: '{"revenue":120}' },
        ],
      }),
    }),
    defineTool({
      name: 'guarded',
      description: 'Does something a person must approve',
      parameters: z.object({ target: z.string() }),
      needsApproval: true,
      execute: async ({ target }) => ({ content: `guarded ran on ${target}` }),
    }),
    defineTool({
      name: 'wait_gate',
      description: 'Waits until a gate opens',
      parameters: z.object({ gate: z.string() }),
      execute: async ({ gate }, { signal }) => {
        await Promise.race([gates.wait(gate), new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted'))))]);
        return { content: `gate ${gate} opened` };
      },
    }),
  ];
}

/** The official SDK's client for the A2A agent at `url`, presenting `token` when given. */
export async function a2aClient(url: string, token?: string): Promise<Client> {
  const fetchImpl: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    if (token !== undefined) headers.set('authorization', `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
  const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    // The SDK declares its options as a class it does not export: a plain object is what its own examples pass.
    // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment
    transports: [new JsonRpcTransportFactory({ fetchImpl })],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
  });
  return new ClientFactory(options).createFromUrl(url);
}
