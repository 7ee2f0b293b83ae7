import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cliProcess.js';
import { stdioFixture } from '../support/mcpFixture.js';

const dir = mkdtempSync(join(tmpdir(), 'troupe-mcp-cli-'));
function configFile(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(content));
  return path;
}
const good = configFile('good.json', { mcpServers: { calc: { ...stdioFixture('stdioServer'), env: { SECRET_TOKEN: 'cli-secret-77aa99' } } } });

interface Row {
  name: string;
  source: string;
  annotations: Record<string, boolean>;
  hints?: Record<string, boolean>;
}

describe('troupe tools --mcp', () => {
  it("lists the MCP servers' tools with their source, annotations and an untrusted server's hints", async () => {
    const result = await runCli(['tools', '--mcp', good, '--json']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const rows = JSON.parse(result.stdout) as Row[];
    expect(rows.find((row) => row.name === 'calc__add')).toEqual({
      name: 'calc__add',
      source: 'mcp:calc',
      description: 'Add two numbers',
      annotations: { readOnly: false, destructive: true, idempotent: false, openWorld: true },
      hints: { readOnly: true, destructive: false, idempotent: false, openWorld: false },
    });
    expect(rows.find((row) => row.name === 'search_memory')?.source).toBe('meta');
  });

  it('reads TROUPE_MCP_CONFIG when there is no --mcp', async () => {
    const result = await runCli(['tools'], { TROUPE_MCP_CONFIG: good });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^calc__add\s+mcp:calc\s+-d-o \(r---\)\s+Add two numbers$/m);
  });

  it('a bad file is refused naming the file and the field', async () => {
    const bad = configFile('bad.json', { mcpServers: { calc: { command: 'node', args: 'not-a-list' } } });
    for (const args of [
      ['tools', '--mcp', bad],
      ['run', '--memory', '--mcp', bad, 'hello'],
    ]) {
      const result = await runCli(args);
      expect(result.code, args[0]).toBe(2);
      expect(result.stderr).toContain(`MCP config ${bad}: mcpServers.calc.args: `);
    }
  });

  it('a server that cannot be reached is named on stderr and fails the listing', async () => {
    const down = configFile('down.json', { mcpServers: { gone: { command: process.execPath, args: ['-e', 'process.exit(1)'] } } });
    const result = await runCli(['tools', '--mcp', down]);
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(/^troupe: MCP server gone could not be reached: /m);
    expect(result.stdout).toMatch(/^search_memory/m);
  });
});
