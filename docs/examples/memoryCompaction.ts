import { createRuntime } from 'troupe';

// Small tiers, so a few requirements make root's memory move: L1 → L2 or an L3 summary → L4 facts.
const rt = await createRuntime({
  compactionConcurrency: 2, // agents' memories compacted at once, beside their turns
  memory: { limits: { l1Capacity: 4, l2Capacity: 4, l3Capacity: 4 } },
});

for (const text of ['the harbour opens at six', 'the ferry leaves at seven', 'the market closes at noon']) {
  const taskId = await rt.submit(text);
  await rt.waitForAnswer(taskId, { timeoutMs: 30_000 });
}

const { counts } = await rt.memory('root');
console.log(counts); // { l1, l2, l3, l4 }: compaction runs in the background, so L1 may still be over its capacity
await rt.shutdown(); // the compactor finishes its batch before the memories close
