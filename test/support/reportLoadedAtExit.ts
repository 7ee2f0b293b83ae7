/**
 * Preloaded (`node --import <this, transpiled> <program>`): when the process exits, writes to the
 * file `LOADED_PACKAGES_FILE` the names of the packages it loaded, ESM or CJS
 * (`loadedPackageNames`), one JSON array. For programs that exit on their own
 * (the CLI), where nothing can be asked of them after they ran.
 */
import { writeFileSync } from 'node:fs';
import { loadedPackageNames } from './loadedPackageNames.js';

const file = process.env['LOADED_PACKAGES_FILE'];
if (file === undefined) throw new Error('reportLoadedAtExit: set LOADED_PACKAGES_FILE');
process.on('exit', () => writeFileSync(file, JSON.stringify(loadedPackageNames())));
