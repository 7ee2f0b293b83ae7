import { createRuntime } from 'troupe';
import { createHttpServer } from 'troupe/server';

const rt = await createRuntime({ dataDir: null }); // memory only
const server = createHttpServer(rt, { token: 'a-long-enough-token' });
const url = await server.listen({ port: 0, host: '127.0.0.1' });
console.log(`open ${url}/ui`); // the page asks for the token once, and the browser keeps it

// The page and its bundle load without the token; the API they call does not.
console.log((await fetch(`${url}/ui`)).status); // 200
console.log((await fetch(`${url}/api/agents`)).status); // 401

// The statechart the agent view draws, each state by the path an agent's `state` names.
const chart = await fetch(`${url}/api/machines/agent`, { headers: { authorization: 'Bearer a-long-enough-token' } });
const { states } = (await chart.json()) as { states: { path: string }[] };
console.log(states.map((state) => state.path).join(' ')); // spawning spawning.thenRun … running running.idle running.turn …

await rt.shutdown();
await server.close();
