import { APIError } from 'openai';
import { describe, expect, it } from 'vitest';
import { Actions, redactedMark } from '../../src/task/index.js';
import { createRuntime } from '../../src/runtime/index.js';
import { MemoryLogger, ScriptedModel, sequentialIds } from '../../src/testing.js';

const apiKey = 'sk-test-0123456789abcdefghij-configured';

describe('configured secrets', () => {
  it('never reach a Task or a log line, even when the provider echoes the key in its errors', async () => {
    // A provider that puts the key it was given in its error message, on every retry too.
    const echoed = (): APIError => APIError.generate(500, { error: { message: `upstream rejected key ${apiKey}` } }, undefined, new Headers());
    const model = new ScriptedModel([{ error: echoed() }, { error: echoed() }]);
    const logger = new MemoryLogger();
    const rt = await createRuntime({ model, logger, secrets: [apiKey], retry: { maxRetries: 1, baseDelayMs: 0 } });
    try {
      const answer = await rt.waitForAnswer(await rt.submit('hello'), { timeoutMs: 10_000 });
      expect(answer.status).toBe('failed');
      expect(answer.error?.code).toBe('model_error');
      expect(answer.error?.message).toContain(`upstream rejected key ${redactedMark}`);
      expect(JSON.stringify(answer)).not.toContain(apiKey);
      expect(logger.entries.some((entry) => entry.message === 'model call failed; retrying')).toBe(true);
      expect(JSON.stringify(logger.entries)).not.toContain(apiKey);
      expect(rt.redactor.text(`key=${apiKey}`)).toBe(`key=${redactedMark}`);
    } finally {
      await rt.shutdown();
    }
  });
});

describe('what the runtime itself lets out', () => {
  const secret = 'open sesame 0123';

  it('a secret the model streams in pieces is whole in no thinking fragment: the fragments are redacted as they stream', async () => {
    const model = new ScriptedModel([{ text: `the word is ${secret}, say it` }]);
    const rt = await createRuntime({ model, secrets: [secret] });
    const fragments: string[] = [];
    rt.bus.on(Actions.thinking).subscribe((task) => fragments.push(typeof task.parameters['text'] === 'string' ? task.parameters['text'] : ''));
    try {
      await rt.waitForAnswer(await rt.submit('hello'), { timeoutMs: 10_000 });
      // The model streams word by word, so the secret arrived in three pieces.
      expect(fragments.join('')).toBe(`the word is ${redactedMark}, say it`);
      for (const word of secret.split(' ')) expect(fragments).not.toContain(`${word} `);
    } finally {
      await rt.shutdown();
    }
  });

  it('an error an agent answers with is redacted before it is sent or stored: a termination reason the model wrote', async () => {
    const model = new ScriptedModel([{ hang: true }]);
    const rt = await createRuntime({ model, secrets: [secret] });
    try {
      await rt.createRole({ name: 'worker', prompt: 'work' });
      const worker = await rt.spawn({ role: 'worker' });
      const canceled = rt.waitForAnswer(await rt.send(worker, 'start'), { timeoutMs: 10_000 });
      await rt.terminate(worker, { by: 'user', reason: `told ${secret}`, mode: 'abort' });
      expect((await canceled).error).toEqual({ code: 'agent_terminated', message: `receiver terminated: told ${redactedMark}` });
    } finally {
      await rt.shutdown();
    }
  });

  it("an agent's id is not made from a role name that would show a secret in every Task it sends", async () => {
    const hex = 'c0ffee00c0ffee00';
    const rt = await createRuntime({ secrets: [hex], ids: sequentialIds() });
    try {
      await rt.createRole({ name: hex, prompt: 'p' });
      await rt.createRole({ name: 'poet', prompt: 'p' });
      expect(await rt.spawn({ role: hex })).toBe('agent-2');
      expect(await rt.spawn({ role: 'poet' })).toBe('poet-3');
    } finally {
      await rt.shutdown();
    }
  });
});
