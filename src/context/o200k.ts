import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

type O200kBase = typeof import('gpt-tokenizer/encoding/o200k_base');

let encoding: O200kBase | undefined;

/**
 * gpt-tokenizer's o200k_base encoding, loaded on first use: its table is about half the memory
 * `import 'troupe'` would otherwise add (37 of 76 MB resident), for a process that may never count
 * a token. It is required (the package ships CommonJS beside its ESM) because counting is synchronous.
 */
export function o200k(): O200kBase {
  encoding ??= require('gpt-tokenizer/encoding/o200k_base') as O200kBase;
  return encoding;
}
