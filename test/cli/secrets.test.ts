import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { startOpenAICompatibleServer } from '../../src/testing.js';
import { runCli } from '../support/cliProcess.js';

const apiKey = 'sk-cli-secret-0123456789abcdef';
const listed = 'hunter2-listed-secret';

describe('the CLI lets no configured secret out', () => {
  it('troupe run (lines, --json, the inspector stream) and troupe messages redact the API key and TROUPE_SECRETS, even when the model says them', async () => {
    // A model that repeats the key it was sent, and another listed secret.
    const server = await startOpenAICompatibleServer({ fallback: () => ({ text: `your key is ${apiKey} and the password is ${listed}` }) });
    const inspector = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    const streamed: string[] = [];
    inspector.on('connection', (socket) => socket.on('message', (data: Buffer) => streamed.push(data.toString())));
    await new Promise<void>((resolve) => inspector.once('listening', () => resolve()));
    const address = inspector.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    const dataDir = await mkdtemp(join(tmpdir(), 'troupe-secrets-'));
    const env = { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: apiKey, TROUPE_SECRETS: ` ${listed} , ` };
    try {
      const lines = await runCli(['run', 'tell me a secret', '--no-status', '--data-dir', dataDir, '--inspect-ws', `ws://127.0.0.1:${port}`], env);
      expect(lines.code, lines.stderr).toBe(0);
      // The model really was sent the key and really said both secrets back.
      expect(server.requests.some((request) => request.headers['authorization'] === `Bearer ${apiKey}`)).toBe(true);
      expect(lines.stdout).toContain('your key is [REDACTED] and the password is [REDACTED]');
      const json = await runCli(['run', 'tell me a secret', '--json', '--data-dir', dataDir], env);
      expect(json.code, json.stderr).toBe(0);
      const taskId = /troupe: task (\S+)/.exec(lines.stderr)?.[1] ?? '';
      const messages = await runCli(['messages', taskId, '--data-dir', dataDir], env);
      expect(messages.code, messages.stderr).toBe(0);
      expect(messages.stdout).toContain('[REDACTED]');
      expect(streamed.length).toBeGreaterThan(0);
      for (const output of [lines.stdout, lines.stderr, json.stdout, json.stderr, messages.stdout, messages.stderr, streamed.join('\n')]) {
        expect(output).not.toContain(apiKey);
        expect(output).not.toContain(listed);
      }
    } finally {
      inspector.close();
      await server.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it("redacts commander's own refusals, which quote the argument they refuse: a secret typed as a flag's value", async () => {
    const result = await runCli(['memory', 'root', '--tier', listed], { TROUPE_SECRETS: listed });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`error: option '--tier <tier>' argument '[REDACTED]' is invalid. --tier must be l1, l2, l3 or l4, got "[REDACTED]"`);
    expect(result.stderr + result.stdout).not.toContain(listed);
  });

  it('refuses a secret that is part of [REDACTED] itself, which nothing could hide, with exit 2 and a message that does not print it', async () => {
    const result = await runCli(['org'], { TROUPE_SECRETS: 'fine-secret-1,REDACTED' });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'troupe: bad settings in the environment: a configured secret (8 characters long) is part of the mark "[REDACTED]" that replaces secrets, so it could not be hidden: choose another\n',
    );
  });
});
