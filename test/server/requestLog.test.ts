import { describe, expect, it } from 'vitest';
import { MemoryLogger } from '../../src/logger.js';
import { Redactor, redactingLogger } from '../../src/task/index.js';
import { call, serverPerTest } from '../support/httpServerFixture.js';
import { LevelledMemoryLogger } from '../support/levelledLogger.js';
import { until } from '../support/runtimeFixture.js';

/** Each server is closed after the test that started it. */
const serve = serverPerTest();

describe('the request log', () => {
  it('at debug, logs every request: method, path and query, status and time', async () => {
    const logger = new LevelledMemoryLogger('debug');
    const { url } = await serve({ memory: true, server: { logger } });
    expect((await call(url, '/api/agents?limit=5')).status).toBe(200);
    expect((await call(url, '/api/nowhere')).status).toBe(404);
    const requests = (): Record<string, unknown>[] => logger.entries.filter((entry) => entry.message === 'request').map((entry) => entry.fields);
    // A request is logged once its reply has gone out, which may be after the client has read it.
    await until(() => requests().length === 2, 'both requests to be logged');
    expect(requests()).toEqual([
      { method: 'GET', url: '/api/agents?limit=5', status: 200, ms: expect.any(Number) as number },
      { method: 'GET', url: '/api/nowhere', status: 404, ms: expect.any(Number) as number },
    ]);
  });

  it('above debug, builds no line per request, through the redacting logger troupe serve uses too', async () => {
    const logger = new LevelledMemoryLogger('info');
    const { url } = await serve({ memory: true, server: { logger: redactingLogger(logger, new Redactor(['a-configured-secret'])) } });
    expect((await call(url, '/api/agents')).status).toBe(200);
    expect((await call(url, '/api/nowhere')).status).toBe(404);
    expect(logger.unwritten).toEqual([]);
    expect(logger.entries.filter((entry) => entry.message === 'request')).toEqual([]);
  });

  it('logs the 503s of a drain at debug, not as failures: every client is told, and the shutdown is logged once', async () => {
    const logger = new MemoryLogger();
    const { url, server } = await serve({ memory: true, server: { logger } });
    server.drain();
    const refused = await call<{ error: { code: string } }>(url, '/api/submit', { json: { text: 'too late' } });
    expect([refused.status, refused.body.error.code]).toEqual([503, 'intake_closed']);
    expect(logger.entries.filter((entry) => entry.level === 'error' || entry.level === 'warn')).toEqual([]);
    expect(logger.entries.find((entry) => entry.message === 'request refused')).toMatchObject({
      level: 'debug',
      fields: { method: 'POST', url: '/api/submit', status: 503 },
    });
  });
});
