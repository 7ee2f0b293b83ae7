import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLogLevel, readRuntimeSettings, readSecrets, readToken, resolveDataDir } from '../../src/cli/environment.js';
import { ValidationError } from '../../src/errors.js';
import { runCli } from '../support/cliProcess.js';

// The CLI reads the environment (the library does not): one reading for every command, and a
// malformed variable is a usage error naming it.

let base: string;
beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'troupe-env-'));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('reading the environment', () => {
  it('resolves the data dir: --memory, else --data-dir, else TROUPE_DATA_DIR, else ./.troupe, absolute', () => {
    const env = { TROUPE_DATA_DIR: ' from-env ' };
    expect(resolveDataDir('flag', true, env)).toBeNull();
    expect(resolveDataDir('flag', false, env)).toBe(resolve('flag'));
    expect(resolveDataDir(undefined, false, env)).toBe(resolve('from-env'));
    expect(resolveDataDir(undefined, false, { TROUPE_DATA_DIR: '  ' })).toBe(resolve('.troupe'));
    expect(resolveDataDir(undefined, false, {})).toBe(resolve('.troupe'));
  });

  it('reads TROUPE_LOG_LEVEL strictly: unset or blank gives the default, an unknown level throws naming the variable', () => {
    expect(readLogLevel({}, 'warn')).toBe('warn');
    expect(readLogLevel({ TROUPE_LOG_LEVEL: ' ' }, 'info')).toBe('info');
    expect(readLogLevel({ TROUPE_LOG_LEVEL: 'debug' }, 'info')).toBe('debug');
    let thrown: unknown;
    try {
      readLogLevel({ TROUPE_LOG_LEVEL: 'DEBUG' }, 'info');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ValidationError);
    expect(thrown).toMatchObject({ code: 'invalid_input', field: 'TROUPE_LOG_LEVEL', message: expect.stringContaining('got "DEBUG"') as unknown });
  });

  it("reads the memory's settings: TROUPE_CONTEXT_TOKENS strictly, and no embedder unless the endpoint has one", () => {
    const read = (env: Record<string, string>) => readRuntimeSettings({ memory: true }, env, 'info').memory;
    expect(read({})).toEqual({});
    expect(read({ TROUPE_CONTEXT_TOKENS: ' 4000 ' })).toEqual({ context: { tokens: 4000 } });
    expect(read({ TROUPE_L4_COMPRESS_ABOVE: '2000' })).toEqual({ facts: { compressAbove: 2000, keepTopN: 1600 } });
    expect(read({ TROUPE_L4_MAX_WAITING_ADDS: '50' })).toEqual({ facts: { maxWaitingAdds: 50 } });
    for (const bad of ['10', 'many', '1.5', '99999999999']) {
      expect(() => read({ TROUPE_CONTEXT_TOKENS: bad })).toThrow(/^TROUPE_CONTEXT_TOKENS: must be a whole number of tokens/);
    }
    expect(read({ OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' })).toEqual({});
    expect(read({ OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', TROUPE_EMBEDDING_MODEL: 'text-embedding-3-small' }).embedder).toMatchObject({
      id: 'openai:text-embedding-3-small',
    });
  });

  it('reads the token and the secrets to redact, ignoring blank values', () => {
    expect(readToken({ TROUPE_TOKEN: ' t0k ' })).toBe('t0k');
    expect(readToken({ TROUPE_TOKEN: '' })).toBeUndefined();
    expect(readSecrets({ OPENAI_API_KEY: 'sk-abc' })).toEqual(['sk-abc']);
    expect(readSecrets({ OPENAI_API_KEY: ' ' })).toEqual([]);
  });
});

describe('the CLI on a malformed environment', () => {
  it.each([
    ['run', 'TROUPE_LOG_LEVEL', ['run', 'x', '--no-status'], { TROUPE_LOG_LEVEL: 'loud' }, /TROUPE_LOG_LEVEL: must be one of trace, .*; got "loud"/],
    ['run', 'OPENAI_BASE_URL', ['run', 'x', '--no-status'], { OPENAI_BASE_URL: 'localhost:11434' }, /OPENAI_BASE_URL: must be an http\(s\) URL/],
    [
      'serve',
      'TROUPE_LOG_LEVEL',
      ['serve', '--port', '0', '--no-console', '--memory'],
      { TROUPE_LOG_LEVEL: 'verbose' },
      /TROUPE_LOG_LEVEL: must be one of .*; got "verbose"/,
    ],
    [
      'serve',
      'OPENAI_BASE_URL',
      ['serve', '--port', '0', '--no-console', '--memory'],
      { OPENAI_BASE_URL: 'ftp://models.example' },
      /OPENAI_BASE_URL: must be an http\(s\) URL/,
    ],
    ['org', 'TROUPE_LOG_LEVEL', ['org'], { TROUPE_LOG_LEVEL: 'loud' }, /TROUPE_LOG_LEVEL: must be one of .*; got "loud"/],
  ] as const)('%s exits 2 on a malformed %s, naming it', async (_command, _variable, args, env, message) => {
    const result = await runCli(args, env);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/^troupe: bad settings in the environment: /);
    expect(result.stderr).toMatch(message);
  });

  it('refuses --memory together with --data-dir', async () => {
    const result = await runCli(['run', 'x', '--memory', '--data-dir', join(base, 'never')]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--memory.*cannot be used with.*--data-dir/);
    expect(existsSync(join(base, 'never'))).toBe(false);
  });
});

describe('TROUPE_DATA_DIR', () => {
  // Several CLI processes one after another: on a loaded 2-core machine each can take 5–10 s to start.
  it('is where run writes and org reads, the same way, with no --data-dir; --memory leaves it alone', { timeout: 120_000 }, async () => {
    const dir = join(base, 'org-from-env');
    const ran = await runCli(['run', 'write a haiku about rain', '--no-status'], { TROUPE_DATA_DIR: dir });
    expect(ran.code, ran.stderr).toBe(0);
    const org = await runCli(['org', '--json'], { TROUPE_DATA_DIR: dir });
    expect(org.code, org.stderr).toBe(0);
    const { roles, agents } = JSON.parse(org.stdout) as { roles: { name: string }[]; agents: { id: string }[] };
    expect(roles.map((role) => role.name).sort()).toEqual(['poet', 'root']);
    expect(agents.map((agent) => agent.id)).toContain('root');

    const elsewhere = join(base, 'memory-only');
    const inMemory = await runCli(['run', 'write a haiku about rain', '--no-status', '--memory'], { TROUPE_DATA_DIR: elsewhere });
    expect(inMemory.code, inMemory.stderr).toBe(0);
    expect(existsSync(elsewhere)).toBe(false);
  });
});
