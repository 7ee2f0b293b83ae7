import type { Logger } from '../../src/index.js';

const drop = (): void => undefined;

/**
 * A logger at pino's default level, `info`, that discards its lines: the runtime builds (and
 * redacts) every line it would write in production, and skips the `debug` ones it would skip
 * there, while the bench prints nothing and keeps no memory.
 */
export const silentLogger: Logger = { debug: drop, info: drop, warn: drop, error: drop, isLevelEnabled: (level) => level !== 'debug' && level !== 'trace' };
