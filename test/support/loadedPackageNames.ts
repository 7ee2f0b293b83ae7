import { Session } from 'node:inspector';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** The package a file under node_modules belongs to (`@scope/name` or `name`), or undefined outside node_modules. */
function packageOf(path: string): string | undefined {
  const inside = path.split('/node_modules/').at(-1);
  if (inside === undefined || inside === path) return undefined;
  const parts = inside.split('/');
  return inside.startsWith('@') ? `${parts[0] ?? ''}/${parts[1] ?? ''}` : (parts[0] ?? '');
}

/**
 * The URLs of every script V8 has parsed in this process: ES modules and CommonJS alike (Node's
 * CJS cache alone misses ESM-only packages). Enabling the debugger reports the scripts already
 * parsed, synchronously, so this works in an `exit` handler too.
 */
function parsedScripts(): string[] {
  const session = new Session();
  session.connect();
  const urls: string[] = [];
  session.on('Debugger.scriptParsed', (message) => urls.push(message.params.url));
  session.post('Debugger.enable');
  session.disconnect();
  return urls;
}

/**
 * The packages under node_modules this process has loaded, sorted: every script it parsed (ESM or
 * CJS) and every module in the CJS cache (which also holds native addons, not scripts to V8).
 */
export function loadedPackageNames(): string[] {
  const paths = [...parsedScripts(), ...Object.keys(require.cache)];
  return [...new Set(paths.flatMap((path) => packageOf(path) ?? []))].sort();
}
