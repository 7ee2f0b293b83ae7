import { afterEach, describe, expect, it } from 'vitest';
import { runRequirement } from '../../src/cli/run.js';
import { type OpenAICompatibleServer, startOpenAICompatibleServer } from '../../src/testing.js';

// `troupe run` on a terminal, in process (a child's stderr is no terminal): what its status line
// shows while a model call is retried, and where its log lines go.

let server: OpenAICompatibleServer | undefined;
afterEach(async () => {
  await server?.close();
});

const erase = '\r\x1b[2K';

describe('troupe run on a terminal', () => {
  it('shows a retry on the status line and prints log lines above it, never into it', async () => {
    server = await startOpenAICompatibleServer();
    server.script({ status: 503, message: 'overloaded' });
    const stderr: string[] = [];
    const stdout: string[] = [];
    const io = {
      stdout: { write: (text: string) => stdout.push(text) },
      stderr: { write: (text: string) => stderr.push(text), isTTY: true, columns: 200 },
      env: { OPENAI_BASE_URL: server.baseURL, TROUPE_LOG_LEVEL: 'warn' },
    };
    const code = await runRequirement('write a haiku about rain', { timeoutSeconds: 60, verbose: false, status: true, memory: true }, io);
    expect(code, stderr.join('')).toBe(0);
    // The retry showed first on the line, at once (its wait, 1 s, shortened by up to half at random).
    expect(
      stderr.some(
        (chunk) => chunk.startsWith(erase) && /^model retry 1\/3 in (0\.[5-9]|1) s: HTTP 503 server_error: overloaded/.test(chunk.slice(erase.length + 2)),
      ),
    ).toBe(true);
    // The retry's log line came whole, on a cleared line, and the status line was drawn again after it.
    const logged = stderr.findIndex((chunk) => chunk.includes('"msg":"model call failed; retrying"'));
    expect(JSON.parse(stderr[logged] ?? '')).toMatchObject({ level: 40, attempt: 1, status: 503 });
    expect(stderr[logged - 1]).toBe(erase);
    expect(stderr[logged + 1]?.startsWith(erase)).toBe(true);
    expect(stdout.join('')).toContain('each drop a small syllable');
  });

  it("prints the task's line above the status line, never into it, and counts one agent and one call in the singular", async () => {
    server = await startOpenAICompatibleServer();
    // Root answers at once: the run has one agent and one model call.
    server.script({ text: 'rain on the roof' });
    const stderr: string[] = [];
    const io = {
      stdout: { write: () => true },
      stderr: { write: (text: string) => stderr.push(text), isTTY: true, columns: 200 },
      env: { OPENAI_BASE_URL: server.baseURL, TROUPE_LOG_LEVEL: 'warn' },
    };
    const code = await runRequirement('write a haiku about rain', { timeoutSeconds: 60, verbose: false, status: true, memory: true }, io);
    expect(code, stderr.join('')).toBe(0);
    const taskLine = stderr.findIndex((chunk) => chunk.includes('troupe: task '));
    expect(stderr[taskLine]).toMatch(/^troupe: task \S+ in session \S+ \(its messages: troupe messages \S+; continue it: --session \S+\)\n$/);
    // The status line was cleared first, and drawn again after it.
    expect(stderr[taskLine - 1]).toBe(erase);
    expect(stderr[taskLine + 1]?.startsWith(erase)).toBe(true);
    expect(stderr.join('')).toContain('troupe: 1 agent, 1 model call, ');
    expect(stderr.join('')).toContain(', 0 pending tasks at shutdown');
  });
});
