import { describe, expect, it, vi } from 'vitest';
import { StatusLine } from '../../src/cli/statusLine.js';
import type { AgentState, AgentView } from '../../src/runtime/index.js';

function fakeStream(): { stream: NodeJS.WriteStream; written: string[] } {
  const written: string[] = [];
  const stream = { columns: 40, isTTY: true, write: (chunk: string) => written.push(chunk) > 0 } as unknown as NodeJS.WriteStream;
  return { stream, written };
}

const agent = (id: string, state: AgentState, status: 'active' | 'terminated' = 'active', queued = 0): AgentView => ({
  id,
  state,
  status,
  queued,
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
      const agents = [agent('root', 'running.turn.acting'), agent('poet-1', 'running.turn.thinking', 'active', 2), agent('gone', 'terminated', 'terminated')];
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

  it('prints output lines above the status line, never inside it', () => {
    const { stream, written } = fakeStream();
    const out = fakeStream();
    const line = new StatusLine(stream, () => [agent('root', 'running.idle')]);
    line.print(out.stream, 'first');
    line.print(out.stream, 'second');
    expect(out.written).toEqual(['first\n', 'second\n']);
    // Each print clears the drawn line before writing and draws it again after.
    expect(written.filter((chunk) => chunk === '\r\x1b[2K')).toHaveLength(1);
    expect(written.filter((chunk) => chunk.includes('root: idle'))).toHaveLength(2);
  });
});
