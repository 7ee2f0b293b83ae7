/**
 * Preloaded (`node --import <this, transpiled> <program>`): when the process exits, writes to the
 * file `LOADED_PACKAGES_FILE` names the packages it loaded through Node's CJS loader
 * (`loadedCjsPackages`), one JSON array. For programs that exit on their own
 * (the CLI), where nothing can be asked of them after they ran.
 */
import { writeFileSync } from 'node:fs';
import { loadedCjsPackages } from './cjsPackages.js';

const file = process.env['LOADED_PACKAGES_FILE'];
if (file === undefined) throw new Error('reportLoadedAtExit: set LOADED_PACKAGES_FILE');
process.on('exit', () => writeFileSync(file, JSON.stringify(loadedCjsPackages())));
