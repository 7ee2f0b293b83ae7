import { z } from 'zod';
import { ScriptedModel } from '../../src/llm/index.js';
import { createRuntime } from '../../src/runtime/index.js';
import { defineTool, jsonResult } from '../../src/tools/index.js';
import { sized } from './benchSize.js';
import { type Row, duration, times } from './report.js';
import { silentLogger } from './silentLogger.js';

/** CPU time (user + system, ms) the process spends over `ms` of waiting. */
async function cpuOver(ms: number): Promise<number> {
  const start = process.cpuUsage();
  await new Promise((resolve) => setTimeout(resolve, ms));
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

/**
 * What calls waiting for a person cost while they wait: the process's CPU over a stretch of idle
 * time with `waiting` calls paused for approval on one agent, beside the same runtime idle with
 * none. One timer serves every approval's expiry, so the two should read alike.
 */
async function idleCpu(waiting: number, ms: number): Promise<number> {
  const tool = defineTool({
    name: 'act',
    description: 'acts',
    parameters: z.object({ n: z.number() }),
    needsApproval: true,
    execute: ({ n }) => Promise.resolve(jsonResult({ n })),
  });
  const calls = Array.from({ length: waiting }, (_, n) => ({ name: 'act', arguments: { n } }));
  const rt = await createRuntime({
    model: new ScriptedModel(waiting === 0 ? [] : [{ toolCalls: calls }, { text: 'done' }]),
    tools: [tool],
    logger: silentLogger,
    maxToolCallsPerReply: Math.max(1, waiting),
    maxPendingApprovalsPerAgent: Math.max(1, waiting),
    maxPendingApprovals: Math.max(1, waiting),
  });
  try {
    if (waiting > 0) {
      await rt.submit('act on everything');
      while (rt.agent('root')?.state !== 'running.awaitingApproval') await new Promise((resolve) => setTimeout(resolve, 5));
    }
    // What the pause set off (memory of the thousand calls, the bus's observers) settles first.
    await cpuOver(ms);
    return await cpuOver(ms);
  } finally {
    await rt.shutdown({ drainTimeoutMs: 0 });
  }
}

export async function approvalsWaiting(): Promise<Row[]> {
  const waiting = sized(1_000, 20);
  const ms = sized(2_000, 50);
  const none = await idleCpu(0, ms);
  const some = await idleCpu(waiting, ms);
  return [
    {
      benchmark: `CPU over ${duration(ms)} idle, ${waiting} calls waiting for approval (beside none waiting)`,
      troupe: duration(some),
      raw: duration(none),
      ratio: none > 0 ? some / none : Number.NaN,
      notes: `${times(none > 0 ? some / none : Number.NaN)}; one expiry timer for all of them`,
    },
  ];
}
