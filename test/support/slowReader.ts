import { execFileSync, spawn } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, rmSync } from 'node:fs';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CliResult, projectRoot, troupeArgs } from './cliProcess.js';

/** How slowly `runCliReadSlowly` reads. */
interface SlowReading {
  /** After the first chunk, the reader reads on only once the process has exited or this long has passed. */
  readonly holdMs: number;
  /** After each later chunk, the reader stops this long. */
  readonly pauseMs: number;
}

/**
 * Runs `troupe <args>` with its stdout into a pipe, as `troupe … | jq` runs it (a named pipe: the
 * `pipe` of `spawn` is a socket pair, whose buffers hold far more than a pipe's 64 KiB), read
 * slowly as a pager or a busy `jq` reads: after the first chunk the reader holds until the
 * process exits (or `holdMs` passes, which is all a process that waits for its reader gets),
 * then reads on with a pause after every chunk. A process that exits with output still
 * unwritten has lost it by then; one that waits for its output to leave passes however slow the
 * reader is: no result depends on how long anything takes.
 */
export async function runCliReadSlowly(
  args: readonly string[],
  env: Record<string, string>,
  reading: SlowReading = { holdMs: 2_000, pauseMs: 5 },
): Promise<CliResult> {
  const dir = mkdtempSync(join(tmpdir(), 'troupe-pipe-'));
  try {
    const fifo = join(dir, 'stdout');
    execFileSync('mkfifo', [fifo]);
    // The read end first, without blocking; then the write end, which opens at once beside a reader.
    const readEnd = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const writeEnd = openSync(fifo, constants.O_WRONLY);
    const child = spawn(process.execPath, troupeArgs(args), {
      cwd: projectRoot,
      env: { ...process.env, TROUPE_LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', writeEnd, 'pipe'],
    });
    closeSync(writeEnd);
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const closed = new Promise<number | null>((resolve) => child.once('close', resolve));
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const stdout = await slowlyRead(new Socket({ fd: readEnd, readable: true, writable: false }), exited, reading);
    return { code: await closed, stdout, stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** All `pipe` carries until its writers close it, read as `runCliReadSlowly` says. */
function slowlyRead(pipe: Socket, exited: Promise<void>, reading: SlowReading): Promise<string> {
  const chunks: Buffer[] = [];
  pipe.on('data', (chunk: Buffer) => {
    chunks.push(chunk);
    pipe.pause();
    const wait = chunks.length === 1 ? Promise.race([exited, delay(reading.holdMs)]) : delay(reading.pauseMs);
    void wait.then(() => pipe.resume());
  });
  return new Promise((resolve, reject) => {
    pipe.once('error', reject);
    pipe.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
