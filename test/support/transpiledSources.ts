import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { writeDashboard } from '../../src/server/dashboardAssets.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
/** Where the run's JavaScript goes: inside the project, so packages and the package.json resolve from it as from the sources. */
const outDir = 'build/test';

/** esbuild's transform of a project file into the run's build: what tsx applies to each file it loads. */
const transform = {
  absWorkingDir: root,
  outdir: outDir,
  outbase: '.',
  format: 'esm',
  platform: 'node',
  target: 'node20',
  logLevel: 'error',
} as const;

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
  await build({ ...transform, entryPoints: ['src', 'machines', 'test', 'scripts'].flatMap(typeScriptFiles) });
  await transpileExamples();
  // The dashboard's bundle beside the transpiled server, which serves it from there (the bench's smoke run).
  await writeDashboard(new URL('../../ui/', import.meta.url), new URL(`../../${outDir}/ui/`, import.meta.url));
}

/** The package's entry points by import specifier (`troupe`, `troupe/testing`, …): where each one's JavaScript is in the run's build. */
function packageEntries(): Map<string, string> {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; exports: Record<string, { import?: string }> };
  const entries = new Map<string, string>();
  for (const [subpath, target] of Object.entries(manifest.exports)) {
    if (target.import === undefined) continue;
    entries.set(subpath === '.' ? manifest.name : `${manifest.name}/${subpath.slice(2)}`, join(outDir, target.import.replace(/^\.\/dist\//, '')));
  }
  return entries;
}

/**
 * docs/examples import the package by name, as a reader's code does; their JavaScript imports the
 * run's build of each entry point instead, so an example starts as fast as any other process.
 */
async function transpileExamples(): Promise<void> {
  const entries = packageEntries();
  const result = await build({ ...transform, entryPoints: typeScriptFiles('docs/examples'), write: false });
  for (const file of result.outputFiles) {
    const text = file.text.replace(/(from |import\()"(troupe(?:\/[\w-]+)?)"/g, (_whole, keyword: string, specifier: string) => {
      const entry = entries.get(specifier);
      if (entry === undefined) throw new Error(`${relative(root, file.path)}: no entry point of the package is named ${specifier}`);
      const path = relative(dirname(relative(root, file.path)), entry);
      return `${keyword}"${path.startsWith('.') ? path : `./${path}`}"`;
    });
    mkdirSync(dirname(file.path), { recursive: true });
    writeFileSync(file.path, text);
  }
}
