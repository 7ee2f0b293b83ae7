// The live heap of another Node process, through its inspector: a full GC first, then
// `process.memoryUsage().heapUsed`. What the process keeps alive, unlike its RSS, which also
// holds garbage V8 has not collected yet and the pages of memory-mapped files.

import WebSocket from 'ws';

/** The inspector's WebSocket URL in a line of the process's stderr (`Debugger listening on ws://…`), if it is that line. */
export function inspectorUrlIn(line: string): string | undefined {
  return /Debugger listening on (ws:\/\/\S+)/.exec(line)?.[1];
}

/** MB the process at `inspectorUrl` holds on its heap right after a full garbage collection. */
export async function liveHeapMb(inspectorUrl: string): Promise<number> {
  const socket = new WebSocket(inspectorUrl);
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  let next = 0;
  const replies = new Map<number, (result: unknown) => void>();
  socket.on('message', (data: Buffer) => {
    const reply = JSON.parse(data.toString()) as { id?: number; result?: unknown };
    if (reply.id !== undefined) replies.get(reply.id)?.(reply.result);
  });
  const call = (method: string, params: object = {}): Promise<unknown> =>
    new Promise((resolve) => {
      const id = ++next;
      replies.set(id, resolve);
      socket.send(JSON.stringify({ id, method, params }));
    });
  try {
    await call('HeapProfiler.collectGarbage');
    const evaluated = (await call('Runtime.evaluate', { expression: 'process.memoryUsage().heapUsed' })) as { result?: { value?: number } };
    return (evaluated.result?.value ?? Number.NaN) / 2 ** 20;
  } finally {
    socket.close();
  }
}
