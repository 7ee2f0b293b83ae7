import { TroupeError, describeError } from '../errors.js';

/**
 * The org store's module, loaded when a store is first opened (a memory-only runtime never loads
 * lmdb). lmdb is a native addon: a prebuilt one comes with it for the common platforms, and
 * elsewhere its install script builds one, which needs a C++ compiler and, from npm 11, the
 * project's leave. Without either it cannot load, and the error says what to do.
 */
export async function loadOrgStore(): Promise<typeof import('./store.js')> {
  try {
    await import('lmdb');
  } catch (error) {
    const [reason] = describeError(error).split('\n');
    throw new TroupeError(
      'native_addon_missing',
      `lmdb, troupe's store, did not load (${reason ?? 'no reason given'}). With no prebuilt addon for ${process.platform}-${process.arch}, ` +
        'its install script must build one: install a C++ compiler, allow the script in your package.json ("allowScripts": { "lmdb": true }, npm 11 and later), then run npm rebuild lmdb',
      { cause: error },
    );
  }
  return import('./store.js');
}
