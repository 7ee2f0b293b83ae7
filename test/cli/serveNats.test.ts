import { expect, it } from 'vitest';
import { sequentialIds } from '../../src/ids.js';
import { systemClock } from '../../src/clock.js';
import { createTask, taskText } from '../../src/task/index.js';
import { cleanupAfterEach } from '../support/cleanupAfterEach.js';
import { runCli } from '../support/cliProcess.js';
import { NatsServer } from '../support/natsServer.js';
import { describeWithNatsServer, natsBusesAfterEach, natsServerForFile } from '../support/natsBus.js';
import { ServeProcess } from '../support/serveProcess.js';

const natsServer = natsServerForFile();

const later = cleanupAfterEach();
const natsBus = natsBusesAfterEach();

function served(args: readonly string[]): ServeProcess {
  const serve = new ServeProcess(['--port', '0', '--memory', '--no-console', '--drain-timeout', '0', ...args], {});
  later(async () => {
    serve.signal('SIGKILL');
    await serve.done;
  });
  return serve;
}

describeWithNatsServer('troupe serve --nats (child process and a real nats-server)', () => {
  it("puts the society's bus on NATS: a bus in another process asks root and gets its answer, seeing the society at work", async () => {
    const serve = served(['--nats', natsServer().url, '--society', 'haiku']);
    expect(await serve.log('runtime started')).toMatchObject({ nats: natsServer().url, society: 'haiku' });
    const { bus, transport } = await natsBus({ servers: natsServer().url, society: 'haiku' });
    const seen: string[] = [];
    bus.on('node.*').subscribe((task) => seen.push(`${task.from}>${task.to}:${task.action}`));
    await transport.flush();

    const asked = createTask(
      { from: 'remote-client', to: 'root', action: 'execute', parameters: { text: 'write a haiku about rain' } },
      { ids: sequentialIds(), clock: systemClock },
    );
    const answer = await bus.request(asked, { timeoutMs: 60_000 });

    expect(answer).toMatchObject({ id: asked.id, from: 'root', to: 'remote-client', status: 'completed' });
    expect(taskText(answer)).toMatch(/offline scripted model/);
    // The owner's streamed thinking, published on its bus, reached this process too.
    expect(seen).toContain('root>observer:node.thinking');
    serve.signal('SIGTERM');
    expect(await serve.done).toBe(0);
  });

  it('exits 2 naming the address when no nats-server answers there', async () => {
    const gone = await NatsServer.start();
    await gone.dispose();
    const serve = served(['--nats', gone.url]);
    expect(await serve.done).toBe(2);
    const failed = await serve.log('the runtime could not start');
    expect(String(failed['error'])).toContain(`cannot connect to NATS at ${gone.url}`);
  });

  it('refuses --society without --nats, and a society name NATS subjects cannot carry (exit 2)', async () => {
    const alone = await runCli(['serve', '--society', 'haiku', '--port', '0', '--memory', '--no-console']);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('--society needs --nats <url>');
    const dotted = await runCli(['serve', '--nats', natsServer().url, '--society', 'a.b', '--port', '0', '--memory', '--no-console']);
    expect(dotted.code).toBe(2);
    expect(dotted.stderr).toContain('--society must be 1–64 letters, digits, "_" or "-", got "a.b"');
  });

  it('refuses --durable-mailboxes without --nats, on a server without JetStream, and a malformed TROUPE_NATS_ACK_WAIT (exit 2)', async () => {
    const alone = await runCli(['serve', '--durable-mailboxes', '--port', '0', '--memory', '--no-console']);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('--durable-mailboxes needs --nats <url>');
    const noJetStream = served(['--nats', natsServer().url, '--durable-mailboxes']);
    expect(await noJetStream.done).toBe(2);
    expect(String((await noJetStream.log('the runtime could not start'))['error'])).toContain('durable mailboxes need JetStream');
    const badWait = new ServeProcess(['--port', '0', '--memory', '--no-console', '--nats', natsServer().url, '--durable-mailboxes'], {
      TROUPE_NATS_ACK_WAIT: 'soon',
    });
    expect(await badWait.done).toBe(2);
    expect(String((await badWait.log('the runtime could not start'))['error'])).toContain('TROUPE_NATS_ACK_WAIT');
  });
});
