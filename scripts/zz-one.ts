import { OfflineModel } from '../src/llm/index.js';
import { createRuntime } from '../src/runtime/index.js';
const rt = await createRuntime({ model: new OfflineModel() });
const id = await rt.submit('write a haiku about rain number 5');
await rt.waitForAnswer(id, { timeoutMs: 10000 });
const page = await rt.memory('root', { tier: 'l1', limit: 100 });
for (const e of page.entries) console.log(JSON.stringify(e).slice(0, 300));
await rt.shutdown();
