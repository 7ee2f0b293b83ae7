/**
 * Preloaded (`node --import <this, transpiled> <program>`): the program runs as in a project whose
 * node_modules differ from this one as `SWAPPED_PACKAGES` (JSON) says. `{ "hnswlib-node": null }`:
 * the package is not installed (no C++ compiler built it, or npm skipped its build); `{ "zod":
 * "zod-v3" }`: an import of `zod` gets the package installed as `zod-v3` (a project on zod 3).
 */
import { register } from 'node:module';

const swapped = JSON.parse(process.env['SWAPPED_PACKAGES'] ?? '{}') as Record<string, string | null>;
register('./swappedPackagesHooks.js', import.meta.url, { data: swapped });
