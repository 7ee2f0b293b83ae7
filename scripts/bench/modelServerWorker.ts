/**
 * The ReAct bench's model in a process of its own, as a real model is: its CPU is not the
 * loop's. Prints `{"baseURL": …}` once listening; answers each `stats` line on stdin with
 * `{"calls": n, "firstRequest": …}`; exits when stdin closes.
 *
 *   node --import tsx scripts/bench/modelServerWorker.ts <chunkDelayMs>
 */
import { createInterface } from 'node:readline';
import { startLoopServer } from './reactLoops.js';

const { server, firstRequest } = await startLoopServer(Number(process.argv[2] ?? 0));
process.stdout.write(`${JSON.stringify({ baseURL: server.baseURL })}\n`);
const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  if (line.trim() === 'stats') process.stdout.write(`${JSON.stringify({ calls: server.chatCalls, firstRequest: firstRequest() ?? null })}\n`);
});
lines.on('close', () => void server.close());
