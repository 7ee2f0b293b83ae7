/**
 * Run as `node test/support/loadedPackages.js <module>` (transpiled: `processArgs`): imports the module and prints
 * (one JSON line) the packages under node_modules that loading it pulled in, ESM or CJS.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadedPackageNames } from './loadedPackageNames.js';

const target = process.argv[2];
if (target === undefined) throw new Error('usage: loadedPackages.ts <module path>');
await import(pathToFileURL(resolve(target)).href);
process.stdout.write(`${JSON.stringify(loadedPackageNames())}\n`);
