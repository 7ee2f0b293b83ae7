import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

const PackageSchema = z.object({ name: z.string(), version: z.string() });

const thisFile = fileURLToPath(import.meta.url);
/** This copy's version, read once: servers name it in every MCP and A2A exchange. */
let ownVersion: string | undefined;

/**
 * troupe's version, from the first package.json named troupe above this file: from the sources
 * (`src/`), the build (`dist/src/`) or a test transpile (`build/test/src/`), it walks up a few
 * levels at most.
 */
export function troupeVersion(from: string = thisFile): string {
  if (from !== thisFile) return versionAbove(from);
  ownVersion ??= versionAbove(from);
  return ownVersion;
}

function versionAbove(from: string): string {
  let dir = dirname(from);
  for (let level = 0; level < 5; level++, dir = dirname(dir)) {
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    } catch {
      continue; // none here, or not JSON: look further up
    }
    const parsed = PackageSchema.safeParse(json);
    if (parsed.success && parsed.data.name === 'troupe') return parsed.data.version;
  }
  return 'unknown';
}
