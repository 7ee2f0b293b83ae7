/**
 * Preloaded (`node --import <this, transpiled> <program>`): when the process exits, writes to the
 * file `LOADED_PACKAGES_FILE` names the packages under node_modules it loaded through Node's CJS
 * loader, as `loadedPackages.ts` prints them, one JSON array. For programs that exit on their own
 * (the CLI), where nothing can be asked of them after they ran.
 */
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const file = process.env['LOADED_PACKAGES_FILE'];
if (file === undefined) throw new Error('reportLoadedAtExit: set LOADED_PACKAGES_FILE');
process.on('exit', () => {
  const packages = Object.keys(require.cache).flatMap((path) => {
    const inside = path.split('/node_modules/').at(-1);
    if (inside === undefined || inside === path) return [];
    const parts = inside.split('/');
    return [inside.startsWith('@') ? `${parts[0] ?? ''}/${parts[1] ?? ''}` : (parts[0] ?? '')];
  });
  writeFileSync(file, JSON.stringify([...new Set(packages)].sort()));
});
