import { APIError } from 'openai';
import { describe, expect, it } from 'vitest';
import { redactedMark } from '../../src/task/index.js';
import { createRuntime } from '../../src/runtime/index.js';
import { MemoryLogger, ScriptedModel } from '../../src/testing.js';

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
