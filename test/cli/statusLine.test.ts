import { describe, expect, it, vi } from 'vitest';
import { createRunLogger } from '../../src/cli/runLogger.js';
import { StatusLine } from '../../src/cli/statusLine.js';
import type { AgentState, AgentView } from '../../src/runtime/index.js';

function fakeStream(): { stream: NodeJS.WriteStream; written: string[] } {
  const written: string[] = [];
  const stream = { columns: 40, isTTY: true, write: (chunk: string) => written.push(chunk) > 0 } as unknown as NodeJS.WriteStream;
  return { stream, written };
}

const agent = (id: string, state: AgentState, status: 'active' | 'terminated' = 'active', queued = 0, lanes = 0): AgentView => ({
  id,
  state,
  status,
  queued,
  lanes,
  usage: { calls: 0, promptTokens: 0, completionTokens: 0 },
  roleId: 'r',
  roleName: 'r',
  parentAgentId: null,
  createdAt: 0,
  terminatedAt: null,
});

describe('StatusLine', () => {
  it('redraws the live agents and their states in place, cut to the terminal width', () => {
    vi.useFakeTimers();
    try {
      const { stream, written } = fakeStream();
      const agents = [
        agent('root', 'running.turn.acting', 'active', 0, 1),
        agent('poet-1', 'running.turn.thinking', 'active', 2, 1),
        agent('gone', 'terminated', 'terminated'),
      ];
      const line = new StatusLine(stream, () => agents);
      line.start(100);
      vi.advanceTimersByTime(100);
      const drawn = written.at(-1) ?? '';
      expect(drawn.startsWith('\r\x1b[2K')).toBe(true);
      expect(drawn).toContain('root: acting · poet-1: thinking (+2)');
      expect(drawn).not.toContain('gone');
      expect(drawn.length - '\r\x1b[2K'.length).toBeLessThanOrEqual(39);
      line.stop();
      expect(written.at(-1)).toBe('\r\x1b[2K');
    } finally {
      vi.useRealTimers();
    }
  });

  it('says how many sessions an agent serves at once (its lanes), when more than one', () => {
    vi.useFakeTimers();
    try {
      const { stream, written } = fakeStream();
      const line = new StatusLine(stream, () => [agent('root', 'running.turn.thinking', 'active', 4, 3)]);
      line.start(100);
      vi.advanceTimersByTime(100);
      expect(written.at(-1)).toContain('root: thinking ×3 (+4)');
      line.stop();
    } finally {
      vi.useRealTimers();
    }
  });

  it('prints output lines above the status line, never inside it', () => {
    const { stream, written } = fakeStream();
    const out = fakeStream();
    const line = new StatusLine(stream, () => [agent('root', 'running.idle')]);
    line.start(60_000);
    line.print(out.stream, 'first');
    line.print(out.stream, 'second');
    expect(out.written).toEqual(['first\n', 'second\n']);
    // Drawn at start; each print clears the drawn line before writing and draws it again after.
    expect(written.filter((chunk) => chunk === '\r\x1b[2K')).toHaveLength(2);
    expect(written.filter((chunk) => chunk.includes('root: idle'))).toHaveLength(3);
    // Stopped, it is gone for good: a late line does not bring it back.
    line.stop();
    const before = written.length;
    line.print(out.stream, 'late');
    expect(written.slice(before)).toEqual([]);
    line.stop();
  });

  it('shows a notice (a model retry) first, at once, until it is cleared', () => {
    const { stream, written } = fakeStream();
    const line = new StatusLine(stream, () => [agent('root', 'running.turn.thinking')]);
    line.start(60_000);
    line.notice('model retry 1/3 in 1 s: connection failed: ECONNREFUSED');
    const erase = '\r\x1b[2K';
    expect(written.at(-1)?.startsWith(erase)).toBe(true);
    expect(written.at(-1)?.slice(erase.length + 2)).toMatch(/^model retry 1\/3 in 1 s: connection f/);
    expect(written.at(-1)?.length).toBeLessThanOrEqual(erase.length + 39);
    line.notice(undefined);
    expect(written.at(-1)?.slice(erase.length + 2)).toBe('root: thinking');
    line.stop();
  });

  it('takes the log lines of troupe run above it, so they never garble it', () => {
    const { stream, written } = fakeStream();
    const line = new StatusLine(stream, () => [agent('root', 'running.turn.thinking')]);
    line.start(60_000);
    const logger = createRunLogger('warn', (text) => line.print(stream, text));
    logger.warn({ attempt: 1 }, 'model call failed; retrying');
    logger.info({}, 'below the level: not written');
    line.stop();
    const logged = written.findIndex((chunk) => chunk.includes('model call failed'));
    expect(JSON.parse(written[logged] ?? '')).toMatchObject({ level: 40, attempt: 1, msg: 'model call failed; retrying' });
    expect(written[logged]?.endsWith('}\n')).toBe(true);
    // The status line was cleared just before the log line, and drawn again just after it.
    expect(written[logged - 1]).toBe('\r\x1b[2K');
    expect(written[logged + 1]).toMatch(/root: thinking/);
    expect(written.some((chunk) => chunk.includes('not written'))).toBe(false);
  });
});
