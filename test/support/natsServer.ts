import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';

/** Settings written to the server's configuration file (`max_payload: 4096`). */
export type NatsServerConfig = Readonly<Record<string, number | string>>;

export interface NatsServerOptions {
  /** Run with JetStream, storing in a directory of its own that outlives a restart (removed by `dispose`). */
  readonly jetstream?: boolean;
}

/**
 * A real `nats-server` (Debian's package; `.ci/run` installs it) on a loopback port the server
 * picks itself, read back from its log, so parallel test files never fight over a port. Free of
 * vitest: the NATS benchmark starts its server with it too.
 */
export class NatsServer {
  #child: ChildProcessByStdio<null, null, Readable> | undefined;
  #exited: Promise<void> = Promise.resolve();
  #port = -1;

  private constructor(
    private readonly configFile: string | undefined,
    private readonly storeDir: string | undefined,
  ) {}

  /** Starts a server; with `config`, from a configuration file holding those settings. */
  static async start(config?: NatsServerConfig, options: NatsServerOptions = {}): Promise<NatsServer> {
    let configFile: string | undefined;
    if (config !== undefined) {
      const dir = await mkdtemp(join(tmpdir(), 'troupe-nats-'));
      configFile = join(dir, 'nats.conf');
      await writeFile(
        configFile,
        Object.entries(config)
          .map(([key, value]) => `${key}: ${value}\n`)
          .join(''),
      );
    }
    const storeDir = options.jetstream === true ? await mkdtemp(join(tmpdir(), 'troupe-jetstream-')) : undefined;
    const server = new NatsServer(configFile, storeDir);
    await server.#launch(-1);
    return server;
  }

  get url(): string {
    return `nats://127.0.0.1:${this.#port}`;
  }

  get port(): number {
    return this.#port;
  }

  /** Stops the server and waits for it to exit. */
  async stop(): Promise<void> {
    this.#child?.kill('SIGTERM');
    await this.#exited;
    this.#child = undefined;
  }

  /** Starts it again on the same port, as an operator restarting it would. */
  async restart(): Promise<void> {
    await this.stop();
    await this.#launch(this.#port);
  }

  async dispose(): Promise<void> {
    await this.stop();
    if (this.configFile !== undefined) await rm(join(this.configFile, '..'), { recursive: true, force: true });
    if (this.storeDir !== undefined) await rm(this.storeDir, { recursive: true, force: true });
  }

  async #launch(port: number): Promise<void> {
    const args = [
      ...['-a', '127.0.0.1', '-p', String(port)],
      ...(this.configFile === undefined ? [] : ['-c', this.configFile]),
      ...(this.storeDir === undefined ? [] : ['-js', '-sd', this.storeDir]),
    ];
    const child = spawn('nats-server', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    this.#child = child;
    this.#exited = new Promise((resolve) => child.once('close', () => resolve()));
    this.#port = await new Promise<number>((resolve, reject) => {
      let log = '';
      const read = (chunk: Buffer): void => {
        log += chunk.toString();
        const listening = /Listening for client connections on 127\.0\.0\.1:(\d+)/.exec(log);
        if (listening?.[1] !== undefined && log.includes('Server is ready')) {
          child.stderr.off('data', read);
          child.stderr.resume();
          resolve(Number(listening[1]));
        }
      };
      child.stderr.on('data', read);
      child.once('error', (error) => reject(new Error(`cannot start nats-server (apt-get install nats-server): ${error.message}`)));
      child.once('close', (code) => reject(new Error(`nats-server exited with ${code} before it was ready:\n${log}`)));
    });
  }
}
