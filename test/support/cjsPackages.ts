import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * The packages under node_modules this process has loaded through Node's CJS loader (which every
 * CJS package and every native addon goes through, even when imported from ESM), sorted.
 */
export function loadedCjsPackages(): string[] {
  const packages = Object.keys(require.cache).flatMap((path) => {
    const inside = path.split('/node_modules/').at(-1);
    if (inside === undefined || inside === path) return [];
    const parts = inside.split('/');
    return [inside.startsWith('@') ? `${parts[0] ?? ''}/${parts[1] ?? ''}` : (parts[0] ?? '')];
  });
  return [...new Set(packages)].sort();
}
