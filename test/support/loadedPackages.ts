/**
 * Run as `node test/support/loadedPackages.js <module>` (transpiled: `processArgs`): imports the module and prints
 * (one JSON line) the packages under node_modules that loading it pulled in through Node's CJS
 * loader — which every CJS package and every native addon goes through, even when imported from ESM.
 */
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);
const target = process.argv[2];
if (target === undefined) throw new Error('usage: loadedPackages.ts <module path>');
await import(pathToFileURL(resolve(target)).href);
const packages = Object.keys(require.cache).flatMap((path) => {
  const inside = path.split('/node_modules/').at(-1);
  if (inside === undefined || inside === path) return [];
  const parts = inside.split('/');
  return [inside.startsWith('@') ? `${parts[0] ?? ''}/${parts[1] ?? ''}` : (parts[0] ?? '')];
});
process.stdout.write(`${JSON.stringify([...new Set(packages)].sort())}\n`);
