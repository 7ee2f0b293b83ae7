import { expect, it } from 'vitest';
import { cleanupAfterEach } from '../support/cleanupAfterEach.js';
import { runCli } from '../support/cliProcess.js';
import { describeWithNatsServer, natsServerForFile } from '../support/natsBus.js';
import { ServeProcess } from '../support/serveProcess.js';

const token = 'n4ts-token-never-printed';
const natsServer = natsServerForFile({ authorization: `{ token: "${token}" }` });
const later = cleanupAfterEach();

function started(command: 'serve' | 'node', args: readonly string[], env: Record<string, string> = {}): ServeProcess {
  const child = new ServeProcess(args, env, command);
  later(async () => {
    child.signal('SIGKILL');
    await child.done;
  });
  return child;
}

describeWithNatsServer('troupe serve and node on a NATS server that requires a token', () => {
  it('node logs in with TROUPE_NATS_TOKEN, serve with the token in its --nats URL; neither prints it', { timeout: 120_000 }, async () => {
    const url = natsServer().url;
    const node = started('node', ['--nats', url, '--roles', 'poet', '--name', 'node-a'], { TROUPE_NATS_TOKEN: token });
    await node.log('node started');
    const serve = started('serve', ['--port', '0', '--memory', '--no-console', '--nats', url.replace('nats://', `nats://${token}@`)]);
    expect(await serve.log('runtime started')).toMatchObject({ society: 'default' });
    // The owner hears the node: both are on the society, each with its own way of giving the token.
    await serve.log('node joined');
    for (const child of [node, serve]) {
      child.signal('SIGTERM');
      expect(await child.done).toBe(0);
      expect(child.stderr).not.toContain(token);
    }
  });

  it('exits 2 when the server refuses the token, naming the refusal, never the token given', { timeout: 120_000 }, async () => {
    const url = natsServer().url;
    const wrong = 'wr0ng-token-never-printed';
    for (const [args, env] of [
      [['node', '--nats', url, '--roles', 'poet'], { TROUPE_NATS_TOKEN: wrong }],
      [['node', '--nats', url.replace('nats://', `nats://${wrong}@`), '--roles', 'poet'], {}],
      [['serve', '--port', '0', '--memory', '--no-console', '--nats', url], { TROUPE_NATS_PASSWORD: wrong, TROUPE_NATS_USER: 'troupe' }],
    ] as const) {
      const result = await runCli(args, { ...env, TROUPE_LOG_LEVEL: 'info' });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("refused this connection's credentials");
      expect(result.stderr).not.toContain(wrong);
    }
  });
});
