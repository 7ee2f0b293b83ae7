import { expect, it } from 'vitest';
import { NodeActions, maxRolesPerNode } from '../../src/bus/index.js';
import type { Task } from '../../src/task/index.js';
import { cleanupAfterEach } from '../support/cleanupAfterEach.js';
import { runCli } from '../support/cliProcess.js';
import { NatsServer } from '../support/natsServer.js';
import { describeWithNatsServer, natsBusesAfterEach, natsServerForFile } from '../support/natsBus.js';
import { ServeProcess } from '../support/serveProcess.js';

const natsServer = natsServerForFile();

const later = cleanupAfterEach();
const natsBus = natsBusesAfterEach();

function node(args: readonly string[]): ServeProcess {
  const child = new ServeProcess(args, {}, 'node');
  later(async () => {
    child.signal('SIGKILL');
    await child.done;
  });
  return child;
}

describeWithNatsServer('troupe node (child process and a real nats-server)', () => {
  it('announces itself and its roles to the owner every heartbeat, and says it leaves on SIGTERM (exit 0)', async () => {
    const { bus, transport } = await natsBus({ servers: natsServer().url, society: 'poets' });
    const heard: Task[] = [];
    let seen = (): void => undefined;
    bus.on('nodes.*').subscribe((task) => {
      heard.push(task);
      seen();
    });
    await transport.flush();
    const until = (count: number): Promise<void> =>
      new Promise((resolve) => {
        seen = () => {
          if (heard.length >= count) resolve();
        };
        seen();
      });

    const child = node(['--nats', natsServer().url, '--society', 'poets', '--roles', 'poet, critic', '--name', 'node-a', '--heartbeat', '0.05']);
    expect(await child.log('node started')).toMatchObject({ node: 'node-a', roles: ['poet', 'critic'], society: 'poets' });
    // A second announcement comes by itself: the heartbeat an owner that started late still hears.
    await until(2);
    expect(heard.slice(0, 2)).toMatchObject([
      { from: 'node-a', to: 'owner', action: NodeActions.announce, parameters: { node: 'node-a', roles: ['poet', 'critic'], heartbeatMs: 50 } },
      { from: 'node-a', to: 'owner', action: NodeActions.announce },
    ]);

    child.signal('SIGTERM');
    expect(await child.done).toBe(0);
    expect(heard.at(-1)).toMatchObject({ from: 'node-a', to: 'owner', action: NodeActions.leave, parameters: { node: 'node-a' } });
  });

  it('is heard by the owner (troupe serve --nats): joined with its roles, and left on SIGTERM', { timeout: 120_000 }, async () => {
    const serve = new ServeProcess(['--port', '0', '--memory', '--no-console', '--drain-timeout', '0', '--nats', natsServer().url, '--society', 'owned'], {});
    later(async () => {
      serve.signal('SIGKILL');
      await serve.done;
    });
    await serve.log('runtime started');
    const child = node(['--nats', natsServer().url, '--society', 'owned', '--roles', 'poet', '--name', 'node-b']);
    expect(await serve.log('node joined')).toMatchObject({ node: 'node-b', roles: ['poet'] });
    child.signal('SIGTERM');
    expect(await child.done).toBe(0);
    expect(await serve.log('node left')).toMatchObject({ node: 'node-b' });
    serve.signal('SIGTERM');
    expect(await serve.done).toBe(0);
  });

  it('exits 2 naming the address when no nats-server answers there', async () => {
    const gone = await NatsServer.start();
    await gone.dispose();
    const child = node(['--nats', gone.url, '--roles', 'poet']);
    expect(await child.done).toBe(2);
    expect(String((await child.log('the node could not start'))['error'])).toContain(`cannot connect to NATS at ${gone.url}`);
  });

  it(
    'refuses bad flags with exit 2 naming them: no --roles, a bad role, too many roles, a bad heartbeat, society or metrics port',
    { timeout: 120_000 },
    async () => {
      const cases: Array<[readonly string[], string]> = [
        [['--nats', natsServer().url], "required option '--roles <roles>' not specified"],
        [['--roles', 'poet'], "required option '--nats <url>' not specified"],
        [['--nats', natsServer().url, '--roles', 'po.et'], '--roles: must be 1–64 letters, digits, "_" or "-"'],
        [['--nats', natsServer().url, '--roles', 'poet,poet'], '--roles: each role once'],
        [
          ['--nats', natsServer().url, '--roles', Array.from({ length: maxRolesPerNode + 1 }, (_, i) => `r${i}`).join(',')],
          `--roles: a node hosts at most ${maxRolesPerNode} roles`,
        ],
        [['--nats', natsServer().url, '--roles', 'poet', '--heartbeat', '0'], '--heartbeat must be a positive number of seconds, got "0"'],
        [['--nats', natsServer().url, '--roles', 'poet', '--society', 'a.b'], '--society must be 1–64 letters'],
        [['--nats', natsServer().url, '--roles', 'poet', '--name', 'a b'], '--name: must be 1–64 letters'],
        [
          ['--nats', natsServer().url, '--roles', 'poet', '--metrics-port', '70000'],
          '--metrics-port must be a port number (0 to 65535; 0: any free port), got "70000"',
        ],
      ];
      for (const [args, message] of cases) {
        const refused = await runCli(['node', ...args]);
        expect(refused.code, args.join(' ')).toBe(2);
        expect(refused.stderr, args.join(' ')).toContain(message);
      }
    },
  );
});
