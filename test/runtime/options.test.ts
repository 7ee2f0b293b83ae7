import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors.js';
import { type RuntimeOptions, createRuntime } from '../../src/runtime/index.js';

/** The error `createRuntime(options)` rejects with (it must reject). */
async function refusal(options: RuntimeOptions): Promise<unknown> {
  return createRuntime(options).then(
    () => {
      throw new Error('createRuntime accepted bad options');
    },
    (error: unknown) => error,
  );
}

describe('createRuntime options', () => {
  it('refuses a bad setting with a ValidationError naming it', async () => {
    const cases: [RuntimeOptions, string][] = [
      [{ maxSteps: -1 }, 'maxSteps'],
      [{ mailboxLimit: 'many' as unknown as number }, 'mailboxLimit'],
      [{ logLevel: 'loud' as unknown as 'info' }, 'logLevel'],
      [{ commitDelayMs: -5 }, 'commitDelayMs'],
      [{ maxHeldWrites: 0 }, 'maxHeldWrites'],
      [{ maxHeldUntilDurable: 0 }, 'maxHeldUntilDurable'],
      [{ maxLanesPerAgent: 0 }, 'maxLanesPerAgent'],
      [{ sessionsInMemoryPerAgent: 1.5 }, 'sessionsInMemoryPerAgent'],
      [{ restoreSliceTasks: 0 }, 'restoreSliceTasks'],
      [{ restoreSliceTasks: 1.5 }, 'restoreSliceTasks'],
    ];
    for (const [options, field] of cases) {
      const error = await refusal(options);
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).field).toBe(field);
    }
  });

  it('opens nothing when the settings are bad, and closes the store when the data dir cannot be used', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'troupe-options-'));
    try {
      expect(await refusal({ dataDir: dir, maxSteps: 0 })).toBeInstanceOf(ValidationError);
      expect(existsSync(join(dir, 'data.mdb'))).toBe(false);

      // A data dir whose root was terminated is refused (and the store it opened is closed again), changing nothing.
      const rt = await createRuntime({ dataDir: dir });
      await rt.createRole({ name: 'worker', prompt: 'work' });
      await rt.shutdown();
      const { openOrgStore } = await import('../../src/org/index.js');
      const store = await openOrgStore({ dir });
      await store.markTerminated({ agentId: 'root', terminatedBy: 'user', reason: 'test' });
      await store.close();
      const error = await refusal({ dataDir: dir });
      expect(error).toMatchObject({ code: 'invalid_input' });
      expect((error as Error).message).toMatch(/root agent of this data dir was terminated/);
      const reopened = await openOrgStore({ dir });
      expect(reopened.agent('root')?.status).toBe('terminated');
      await reopened.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
