import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { writeDashboard } from '../../src/server/dashboardAssets.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
/** Where the run's JavaScript goes: inside the project, so packages and the package.json resolve from it as from the sources. */
const outDir = 'build/test';

function typeScriptFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return typeScriptFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/**
 * Vitest's global setup: transpiles `src/`, `machines/`, `test/` and `scripts/` once a run into `build/test/`
 * with esbuild (and bundles the dashboard into `build/test/ui/`), the transform tsx applies inside every process it starts. The CLI processes and
 * scripts the tests spawn (`processArgs`) then start on plain JavaScript: a `troupe run` takes
 * 1.2 s instead of 2.0 s on a 2-core VM, and a run starts well over a hundred of them. Types
 * are checked by `npm run typecheck`, not here.
 */
export default async function transpileForProcesses(): Promise<void> {
  rmSync(join(root, outDir), { recursive: true, force: true });
  await build({
    absWorkingDir: root,
    entryPoints: ['src', 'machines', 'test', 'scripts'].flatMap(typeScriptFiles),
    outdir: outDir,
    outbase: '.',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'error',
  });
  // The dashboard's bundle beside the transpiled server, which serves it from there (the bench's smoke run).
  await writeDashboard(new URL('../../ui/', import.meta.url), new URL(`../../${outDir}/ui/`, import.meta.url));
}
