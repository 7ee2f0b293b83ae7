import { createRuntime, modelFromEnv, toolFromFunction } from 'troupe';
import { z } from 'zod';

// A tool is a typed function and a zod schema for its arguments.
const weather = toolFromFunction(
  async function get_weather({ city }: { city: string }) {
    return { city, sky: 'rain' };
  },
  { description: 'Current weather in a city', parameters: z.object({ city: z.string() }) },
);

// OPENAI_API_KEY / OPENAI_BASE_URL / TROUPE_MODEL choose a real model; without them, the offline one.
const rt = await createRuntime({ tools: [weather], model: modelFromEnv(process.env) });
rt.bus.on('agent.*').subscribe((task) => console.log(task.action, task.from));

const taskId = await rt.submit('write a haiku about rain'); // a requirement for the root agent
const answer = await rt.waitForAnswer(taskId, { timeoutMs: 60_000 });
console.log(answer.status, answer.result, rt.usage());

console.log(await rt.shutdown()); // stop intake, let work in flight finish, stop every agent
