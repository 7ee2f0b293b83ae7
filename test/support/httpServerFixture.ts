import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryLogger } from '../../src/logger.js';
import { OfflineModel, type ModelClient } from '../../src/llm/index.js';
import { type Runtime, type RuntimeOptions, createRuntime } from '../../src/runtime/index.js';
import { type HttpServer, type HttpServerOptions, createHttpServer } from '../../src/server/index.js';
import type { Task } from '../../src/task/index.js';
import { cleanupAfterEach } from './cleanupAfterEach.js';

export interface Served {
  readonly rt: Runtime;
  readonly server: HttpServer;
  readonly url: string;
  readonly logger: MemoryLogger;
  /** Shuts the runtime and the server down and removes the data dir. */
  close(): Promise<void>;
}

/** What to serve: the runtime's model and options, memory only or on a fresh data dir, and the server's options. */
export interface ServeOptions {
  readonly memory?: boolean;
  readonly model?: ModelClient;
  readonly runtime?: Omit<RuntimeOptions, 'model' | 'logger' | 'dataDir'>;
  readonly server?: HttpServerOptions;
}

/**
 * A runtime (offline model unless one is given; an org store in a fresh temp dir unless
 * `memory`) served over real loopback sockets on a free port. The caller closes it; in a test,
 * `serverPerTest` does.
 */
export async function serve(options: ServeOptions = {}): Promise<Served> {
  const dir = options.memory === true ? null : await mkdtemp(join(tmpdir(), 'troupe-http-'));
  const logger = new MemoryLogger();
  const rt = await createRuntime({ ...options.runtime, model: options.model ?? new OfflineModel(), logger, dataDir: dir });
  const server = createHttpServer(rt, { logger, ...options.server });
  const url = await server.listen({ port: 0, host: '127.0.0.1' });
  return {
    rt,
    server,
    url,
    logger,
    close: async () => {
      await server.close();
      await rt.shutdown({ drainTimeoutMs: 0 });
      if (dir !== null) await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * `serve` for tests: call it once at the top of a test file, and every server the returned
 * function starts is closed (its data dir removed) after the test that started it, failing or not.
 */
export function serverPerTest(): (options?: ServeOptions) => Promise<Served> {
  const later = cleanupAfterEach();
  return async (options) => {
    const running = await serve(options);
    later(() => running.close());
    return running;
  };
}

export interface Reply<T = unknown> {
  readonly status: number;
  readonly body: T;
  readonly headers: Headers;
}

/** One request with a JSON body (or a raw string body when `raw` is given); the reply's body parsed as JSON. */
export async function call<T = Record<string, unknown>>(
  url: string,
  path: string,
  init: { method?: string; json?: unknown; raw?: string; token?: string; headers?: Record<string, string> } = {},
): Promise<Reply<T>> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.json !== undefined) headers['content-type'] ??= 'application/json';
  if (init.token !== undefined) headers['authorization'] = `Bearer ${init.token}`;
  const body = init.raw ?? (init.json === undefined ? undefined : JSON.stringify(init.json));
  const response = await fetch(`${url}${path}`, {
    method: init.method ?? (body === undefined ? 'GET' : 'POST'),
    headers,
    ...(body === undefined ? {} : { body }),
  });
  const text = await response.text();
  return { status: response.status, body: (text === '' ? null : JSON.parse(text)) as T, headers: response.headers };
}

/** Messages of a task as the API returns them. */
export interface MessagesBody {
  readonly taskId: string;
  readonly total: number;
  readonly offset: number;
  readonly messages: Task[];
  readonly source: 'store' | 'memory';
}

/** Resolves once the user has the final answer to `taskId` (through the runtime, not a timer). */
export function answered(rt: Runtime, taskId: string): Promise<Task> {
  return rt.waitForAnswer(taskId, { timeoutMs: 20_000 });
}
