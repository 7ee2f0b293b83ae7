/**
 * What to do about an address `troupe serve` could not listen on, read from the system error's
 * code; undefined when the code says nothing a flag could fix.
 */
export function listenHint(error: unknown, { host, port }: { readonly host: string; readonly port: number }): string | undefined {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  switch (code) {
    case 'EADDRINUSE':
      return `port ${port} on ${host} is in use (another troupe serve?): pick another with --port <port>, or --port 0 for any free one`;
    case 'EACCES':
      return `this user may not listen on port ${port} (ports below 1024 need privileges): pick one above 1023 with --port <port>`;
    case 'EADDRNOTAVAIL':
      return `${host} is not an address of this machine: pick one it has with --host (127.0.0.1, or 0.0.0.0 for every interface)`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `host ${host} could not be resolved: give --host an address or a name this machine resolves`;
    default:
      return undefined;
  }
}
