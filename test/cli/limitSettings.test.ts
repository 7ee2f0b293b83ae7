import { describe, expect, it } from 'vitest';
import { limitVariables, readFactLimits, readLimits } from '../../src/cli/limitSettings.js';
import { ValidationError } from '../../src/errors.js';
import { RuntimeConfigSchema } from '../../src/runtime/config/config.js';

describe('limits from the environment', () => {
  it('reads each TROUPE_* limit into its runtime setting; unset or blank ones keep the defaults', () => {
    expect(readLimits({})).toEqual({});
    expect(readLimits({ TROUPE_MAX_CONCURRENT_MODEL_CALLS: ' 3 ', TROUPE_MAX_LIVE_AGENTS: '', TROUPE_MAX_TASK_MS: '60000' })).toEqual({
      maxConcurrentModelCalls: 3,
      maxTaskMs: 60_000,
    });
    expect(readLimits({ TROUPE_MAX_LANES_PER_AGENT: '4', TROUPE_SESSIONS_IN_MEMORY_PER_AGENT: '20' })).toEqual({
      maxLanesPerAgent: 4,
      sessionsInMemoryPerAgent: 20,
    });
    expect(readLimits({ TROUPE_MAX_ARTIFACT_BYTES: '1000', TROUPE_MAX_ARTIFACTS_PER_TASK: '3', TROUPE_ARTIFACT_PREVIEW_CHARS: '0' })).toEqual({
      maxArtifactBytes: 1000,
      maxArtifactsPerTask: 3,
      artifactPreviewChars: 0,
    });
    // Every whole-number setting of the runtime has its variable, named after it.
    expect(limitVariables['TROUPE_MAX_HELD_UNTIL_DURABLE']).toBe('maxHeldUntilDurable');
    expect(limitVariables['TROUPE_MAX_HANDOFFS_PER_TASK']).toBe('maxHandoffsPerTask');
    expect(limitVariables['TROUPE_COMPACTION_SWEEP_MS']).toBe('compactionSweepMs');
    expect(Object.values(limitVariables)).not.toContain('routing');
    // Each set to its default plus one, which every setting allows.
    const defaults = RuntimeConfigSchema.parse({}) as Record<string, unknown>;
    const all = Object.fromEntries(Object.entries(limitVariables).map(([name, setting]) => [name, String(Number(defaults[setting] ?? 1000) + 1)]));
    expect(Object.keys(readLimits(all)).sort()).toEqual(Object.values(limitVariables).sort());
  });

  it.each(['0', '-1', '1.5', 'many', '1e3'])('refuses %s, naming the variable', (value) => {
    let thrown: unknown;
    try {
      readLimits({ TROUPE_MAX_SPAWN_DEPTH: value });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ValidationError);
    expect((thrown as ValidationError).field).toBe('TROUPE_MAX_SPAWN_DEPTH');
    expect((thrown as ValidationError).message).toContain('maxSpawnDepth');
    expect((thrown as ValidationError).message).toContain(`got "${value}"`);
  });

  it('says which bound a whole number crossed', () => {
    expect(() => readLimits({ TROUPE_MAX_SPAWN_DEPTH: '0' })).toThrow(/maxSpawnDepth \(Too small: expected number to be >0\); got "0"/);
  });
});

describe('the router from the environment', () => {
  it('reads TROUPE_ROUTING as the routing option, checked by the router', () => {
    expect(readLimits({ TROUPE_ROUTING: ' {"threshold": 0.2, "askModel": false} ' })).toEqual({ routing: { threshold: 0.2, askModel: false } });
    expect(() => readLimits({ TROUPE_ROUTING: '{"threshold": 2}' })).toThrow(/^TROUPE_ROUTING\.threshold: Too big/);
    expect(() => readLimits({ TROUPE_ROUTING: '{"treshold": 0.2}' })).toThrow(/TROUPE_ROUTING.*treshold/);
    expect(() => readLimits({ TROUPE_ROUTING: 'threshold=0.2' })).toThrow(/^TROUPE_ROUTING: must be a JSON object of the router's options/);
  });
});

describe('the size of L4 from the environment', () => {
  it('reads compressAbove and keepTopN; keepTopN is 80% of compressAbove when only that is set', () => {
    expect(readFactLimits({})).toEqual({});
    expect(readFactLimits({ TROUPE_L4_COMPRESS_ABOVE: '1000' })).toEqual({ compressAbove: 1000, keepTopN: 800 });
    expect(readFactLimits({ TROUPE_L4_COMPRESS_ABOVE: '1000', TROUPE_L4_KEEP_TOP_N: ' 500 ' })).toEqual({ compressAbove: 1000, keepTopN: 500 });
  });

  it('reads maxWaitingAdds, 0 included (an add that would wait is refused), and refuses what is not a whole number, naming the variable', () => {
    expect(readFactLimits({ TROUPE_L4_MAX_WAITING_ADDS: ' 250 ' })).toEqual({ maxWaitingAdds: 250 });
    expect(readFactLimits({ TROUPE_L4_MAX_WAITING_ADDS: '0' })).toEqual({ maxWaitingAdds: 0 });
    for (const bad of ['-1', '1.5', 'many']) {
      expect(() => readFactLimits({ TROUPE_L4_MAX_WAITING_ADDS: bad })).toThrow(
        new RegExp(`^TROUPE_L4_MAX_WAITING_ADDS: must be a whole number for maxWaitingAdds; got "${bad.replace('.', '\\.')}"`),
      );
    }
  });

  it('refuses what L4 refuses, naming the variable', () => {
    expect(() => readFactLimits({ TROUPE_L4_COMPRESS_ABOVE: 'lots' })).toThrow(/must be a whole number for compressAbove; got "lots"/);
    const thrown = (() => {
      try {
        return readFactLimits({ TROUPE_L4_COMPRESS_ABOVE: '100', TROUPE_L4_KEEP_TOP_N: '200' });
      } catch (error) {
        return error;
      }
    })();
    expect(thrown).toBeInstanceOf(ValidationError);
    expect((thrown as ValidationError).field).toBe('TROUPE_L4_KEEP_TOP_N');
    expect((thrown as ValidationError).message).toMatch(/keepTopN \(must be at most compressAbove\); got "200"/);
    expect(() => readFactLimits({ TROUPE_L4_KEEP_TOP_N: '0' })).toThrow(/TROUPE_L4_KEEP_TOP_N|keepTopN/);
  });
});
