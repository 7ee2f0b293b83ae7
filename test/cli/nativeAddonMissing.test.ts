import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cliProcess.js';

// lmdb's native addon comes prebuilt for the common platforms; elsewhere only its install script
// builds one. These environment variables make lmdb's loader look for the prebuilt addon of a
// platform it has none for, and skip a local build: lmdb as it is on such a machine when npm
// did not run its script.
const noLmdbAddon = { npm_config_arch: 'riscv64', PREBUILDS_ONLY: '1' };

describe('a machine where lmdb has no native addon', () => {
  it('troupe run stops with exit 2 and says how to build it', async () => {
    const { code, stderr } = await runCli(['run', 'write a haiku', '--no-status'], noLmdbAddon);
    expect(code).toBe(2);
    expect(stderr).toContain("lmdb, troupe's store, did not load (No native build was found for platform=");
    expect(stderr).toContain(
      'install a C++ compiler, allow the script in your package.json ("allowScripts": { "lmdb": true }, npm 11 and later), then run npm rebuild lmdb',
    );
  });

  it('a memory-only run needs no lmdb', async () => {
    const { code } = await runCli(['run', 'write a haiku', '--no-status', '--memory'], noLmdbAddon);
    expect(code).toBe(0);
  });
});
