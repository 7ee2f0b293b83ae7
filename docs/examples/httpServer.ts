import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRuntime } from 'troupe';
import { createHttpServer } from 'troupe/server';

const dataDir = await mkdtemp(join(tmpdir(), 'troupe-http-'));
const rt = await createRuntime({ dataDir });
const server = createHttpServer(rt, { token: 'a-long-enough-token' }); // not listening until `listen`
const url = await server.listen({ port: 0, host: '127.0.0.1' }); // port 0: any free port
console.log(url);

const headers = { authorization: 'Bearer a-long-enough-token', 'content-type': 'application/json' };
const submitted = await fetch(`${url}/api/submit`, { method: 'POST', headers, body: JSON.stringify({ text: 'write a haiku about rain' }) });
const { taskId } = (await submitted.json()) as { taskId: string };
console.log((await rt.waitForAnswer(taskId, { timeoutMs: 30_000 })).status);

// A graceful stop: refuse new work, let the runtime drain, then close the server.
server.drain();
await rt.shutdown();
await server.close();
await rm(dataDir, { recursive: true, force: true });
