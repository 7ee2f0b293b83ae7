/**
 * Run as `node test/support/loadedPackages.js <module>` (transpiled: `processArgs`): imports the module and prints
 * (one JSON line) the packages under node_modules that loading it pulled in through Node's CJS
 * loader — which every CJS package and every native addon goes through, even when imported from ESM.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadedCjsPackages } from './cjsPackages.js';

const target = process.argv[2];
if (target === undefined) throw new Error('usage: loadedPackages.ts <module path>');
await import(pathToFileURL(resolve(target)).href);
process.stdout.write(`${JSON.stringify(loadedCjsPackages())}\n`);
