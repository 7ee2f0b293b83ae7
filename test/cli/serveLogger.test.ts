import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createServeLogger } from '../../src/cli/serveLogger.js';

// `troupe serve` logs through the stderr its host gives it, not to file descriptor 2: a host that
// runs the command in its own process (a test reading the shutdown summary) sees every line.

describe("troupe serve's logger", () => {
  it('writes JSON lines to the given stderr when it is no terminal', () => {
    const written: string[] = [];
    createServeLogger('info', { write: (text: string) => written.push(text) }).info({ pendingTasks: 0 }, 'troupe serve stopped');
    expect(written).toHaveLength(1);
    expect(written[0]?.endsWith('\n')).toBe(true);
    expect(JSON.parse(written[0] ?? '')).toMatchObject({ level: 30, name: 'troupe', pendingTasks: 0, msg: 'troupe serve stopped' });
  });

  it('pretty-prints to the given stderr when it is a terminal, and drops what is under its level', () => {
    const written: string[] = [];
    const logger = createServeLogger('info', { write: (text: string) => written.push(text), isTTY: true });
    logger.debug({}, 'not shown');
    logger.info({ pendingTasks: 0 }, 'troupe serve stopped');
    expect(written).toHaveLength(1);
    // Colour codes aside: the level, the message and each field on a line of its own.
    expect(stripVTControlCharacters(written[0] ?? '')).toMatch(/INFO: troupe serve stopped\n\s+pendingTasks: 0\n$/);
  });
});
