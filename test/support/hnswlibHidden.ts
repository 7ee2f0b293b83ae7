/**
 * Preloaded (`node --import <this, transpiled> <program>`): the program runs as on a machine where
 * hnswlib-node is not installed (no C++ compiler built it, or npm skipped its build), since the
 * hooks it registers refuse to resolve it, as Node refuses a package that is not there.
 */
import { register } from 'node:module';

register('./hnswlibHiddenHooks.js', import.meta.url);
