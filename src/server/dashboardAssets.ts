import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/** The dashboard's browser code, as `/ui/dashboard.js` and `/ui/dashboard.css` serve it. */
export interface DashboardAssets {
  readonly script: string;
  readonly style: string;
}

/**
 * Where the dashboard is: `dist/ui/` beside the compiled server in the package (`npm run build`
 * bundles it there), or the sources in `ui/` when the server runs from `src/` (tsx, vitest).
 */
const uiDir = new URL('../../ui/', import.meta.url);

/** The most the bundle may weigh (script and style, minified, not compressed); the build fails past it. */
export const dashboardBudgetBytes = 32 * 1024;

const missing = (error: unknown): boolean => (error as NodeJS.ErrnoException).code === 'ENOENT';

/**
 * The bundle, minified, from the dashboard's sources (`ui/main.ts` and what it imports), with
 * esbuild: what `npm run build` writes to `dist/ui/` and what the server serves from sources.
 * esbuild is a development dependency, so it is imported only here, where the sources are.
 */
async function bundleDashboard(sourceDir: URL = uiDir): Promise<DashboardAssets> {
  const { build } = await import('esbuild').catch((error: unknown) => {
    throw new Error(`the dashboard's bundle is not in ${fileURLToPath(uiDir)} and esbuild, which makes it, is not installed: run npm run build`, {
      cause: error,
    });
  });
  const result = await build({
    entryPoints: [fileURLToPath(new URL('main.ts', sourceDir))],
    bundle: true,
    minify: true,
    format: 'esm',
    target: 'es2022',
    write: false,
    outdir: 'ui-out',
    logLevel: 'silent',
  });
  const output = (extension: string): string => result.outputFiles.find((file) => file.path.endsWith(extension))?.text ?? '';
  return { script: output('.js'), style: output('.css') };
}

/**
 * Bundles the sources in `sourceDir` into `outDir` (`dashboard.js`, `dashboard.css`), where a
 * server compiled beside it serves them from: `dist/ui/` for the package, `build/<name>/ui/` for
 * the copies the bench and the tests' child processes run. Resolves with the files' sizes.
 */
export async function writeDashboard(sourceDir: URL, outDir: URL): Promise<{ readonly script: number; readonly style: number }> {
  const { script, style } = await bundleDashboard(sourceDir);
  await mkdir(outDir, { recursive: true });
  await writeFile(new URL('dashboard.js', outDir), script);
  await writeFile(new URL('dashboard.css', outDir), style);
  return { script: Buffer.byteLength(script), style: Buffer.byteLength(style) };
}

/** The prebuilt bundle of the package, or one bundled now from the sources (once per server). */
export async function loadDashboard(): Promise<DashboardAssets> {
  try {
    const [script, style] = await Promise.all([readFile(new URL('dashboard.js', uiDir), 'utf8'), readFile(new URL('dashboard.css', uiDir), 'utf8')]);
    return { script, style };
  } catch (error) {
    if (!missing(error)) throw error;
    return bundleDashboard();
  }
}
