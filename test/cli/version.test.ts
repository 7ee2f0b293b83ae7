import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { troupeVersion } from '../../src/version.js';
import { runCli } from '../support/cliProcess.js';

const packageVersion = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

describe('troupe --version', () => {
  it('prints the version of the package and exits 0', async () => {
    const result = await runCli(['--version']);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe(packageVersion);
  });

  it('finds the package.json named troupe however deep the running file is (sources or build), skipping others', () => {
    const root = mkdtempSync(join(tmpdir(), 'troupe-version-'));
    try {
      mkdirSync(join(root, 'dist', 'src', 'cli'), { recursive: true });
      writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'troupe', version: '9.8.7' }));
      writeFileSync(join(root, 'dist', 'package.json'), JSON.stringify({ name: 'something-else', version: '1.0.0' }));
      writeFileSync(join(root, 'dist', 'src', 'package.json'), '{ not json');
      expect(troupeVersion(join(root, 'dist', 'src', 'cli', 'main.js'))).toBe('9.8.7');
      rmSync(join(root, 'package.json'));
      expect(troupeVersion(join(root, 'dist', 'src', 'cli', 'main.js'))).toBe('unknown');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
