/**
 * Holds the write lock of the LMDB store in the directory it is given, from the line `locked`
 * until a byte arrives on its stdin: run by storeBehind.test.ts, a store whose commits hang as on
 * a stalled disk. The transaction writes nothing.
 */
import { readSync } from 'node:fs';
import { open } from 'lmdb';

const root = open({ path: process.argv[2] ?? '', noSubdir: false, maxDbs: 30 });
root.transactionSync(() => {
  process.stdout.write('locked\n');
  readSync(0, Buffer.alloc(1), 0, 1, null);
});
await root.close();
