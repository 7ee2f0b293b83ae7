import { describe, expect, it } from 'vitest';
import { MemoryLogger } from '../../src/logger.js';
import { Redactor, redactedMark, redactingLogger } from '../../src/task/index.js';

describe('redacting what troupe logs', () => {
  const redactor = new Redactor(['hunter2-configured']);

  it('redacts errors, nested objects and arrays in log fields, and cuts nesting that goes too deep', () => {
    const cyclic: Record<string, unknown> = { note: 'hunter2-configured' };
    cyclic['self'] = cyclic;
    const out = redactor.unknown({
      error: new Error('HTTP 401: Incorrect API key provided: hunter2-configured'),
      request: { headers: { authorization: 'Bearer abcdefghijk' }, url: '/api/events?access_token=hunter2-configured' },
      list: ['a', 'sk-abcdefghijklmnopqrstuv'],
      count: 3,
      cyclic,
    });
    expect(out).toMatchObject({
      error: { name: 'Error', message: `HTTP 401: Incorrect API key provided: ${redactedMark}` },
      request: { headers: { authorization: redactedMark }, url: `/api/events?access_token=${redactedMark}` },
      list: ['a', redactedMark],
      count: 3,
    });
    expect(JSON.stringify(out)).not.toContain('hunter2-configured');
    expect(JSON.stringify(out)).toContain('[nested too deep]');
  });

  it('redactingLogger redacts the message and every field before the logger sees them', () => {
    const logger = new MemoryLogger();
    const redacting = redactingLogger(logger, redactor);
    redacting.warn({ attempt: 1, error: new Error('echoed hunter2-configured') }, 'model call failed with hunter2-configured; retrying');
    redacting.info({ token: 'anything' }, 'plain');
    redacting.debug({ url: '/api/events?since=3&access_token=s3cr3t-unconfigured&x=1' }, 'request');
    expect(logger.entries).toEqual([
      {
        level: 'warn',
        message: `model call failed with ${redactedMark}; retrying`,
        fields: { attempt: 1, error: { name: 'Error', message: `echoed ${redactedMark}` } },
      },
      { level: 'info', message: 'plain', fields: { token: redactedMark } },
      { level: 'debug', message: 'request', fields: { url: `/api/events?since=3&access_token=${redactedMark}&x=1` } },
    ]);
  });
});
