import { describe, expect, it } from 'vitest';
import { listenHint } from '../../src/cli/listenHint.js';
import { ServeInProcess, serveOptions } from '../support/serveInProcess.js';

describe('troupe serve on an address it cannot listen on', () => {
  it('logs what to change: --host for an address this machine does not have', async () => {
    // TEST-NET-3 (RFC 5737): never an address of this machine.
    const serve = new ServeInProcess(serveOptions({ host: '203.0.113.1', console: false }));
    expect(await serve.done).toBe(2);
    const refused = serve.logs.find((line) => line.msg === 'the HTTP API could not start; exiting');
    expect(refused).toMatchObject({ level: 50, host: '203.0.113.1' });
    expect(refused?.['hint']).toMatch(/^203\.0\.113\.1 is not an address of this machine: pick one it has with --host/);
  });

  it('says which flag fixes each refusal, and nothing for an error no flag fixes', () => {
    const where = { host: '127.0.0.1', port: 80 };
    // A refused privileged port cannot be made as root (the tests may run as root): the code is given.
    expect(listenHint(Object.assign(new Error('listen EACCES'), { code: 'EACCES' }), where)).toBe(
      'this user may not listen on port 80 (ports below 1024 need privileges): pick one above 1023 with --port <port>',
    );
    expect(listenHint(Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE' }), where)).toContain('port 80 on 127.0.0.1 is in use');
    expect(listenHint(Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' }), { host: 'nowhere.invalid', port: 80 })).toContain(
      'host nowhere.invalid could not be resolved',
    );
    expect(listenHint(new Error('something else'), where)).toBeUndefined();
  });
});
