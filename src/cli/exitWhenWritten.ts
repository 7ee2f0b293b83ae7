/** A stream the process writes to (stdout, stderr): its write's callback runs once the chunk has left the process. */
interface WrittenStream {
  write(chunk: string, callback: (error?: Error | null) => void): boolean;
}

/**
 * Resolves once everything written to `stream` before the call has left the process, or could
 * not (a reader that closed its end takes nothing more): writes leave in order, so the callback
 * of an empty write runs after every earlier one.
 */
function written(stream: WrittenStream): Promise<void> {
  return new Promise((resolve) => {
    stream.write('', () => resolve());
  });
}

/**
 * Ends the process with `code` once stdout and stderr have let out all that was written to them.
 * `process.exit` alone drops what a pipe has not yet taken: into a slow reader, all but the first
 * 64 KiB (the pipe's buffer) of an answer or a JSON view would be lost, under exit code 0.
 */
export async function exitWhenWritten(code: number): Promise<never> {
  await Promise.all([written(process.stdout), written(process.stderr)]);
  process.exit(code);
}
