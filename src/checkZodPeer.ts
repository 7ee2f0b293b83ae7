import { z } from 'zod';

/**
 * Imported first by each entry point (`troupe`, `troupe/testing`, `troupe/server`, the CLI), so
 * that a project whose `zod` is zod 3 hears what is wrong before anything else loads, instead of
 * `z.json is not a function` from deep inside troupe: zod is a peer dependency, and troupe's own
 * schemas are zod 4's. zod 3.25 does not do (its zod 4 is under `zod/v4`; troupe imports `zod`).
 */
if (typeof (z as { json?: unknown }).json !== 'function') {
  throw new Error('troupe needs zod 4 (its peer dependency, zod@^4.0.0), and this project resolves `zod` to zod 3: npm install zod@^4');
}
