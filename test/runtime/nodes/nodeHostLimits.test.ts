import { describe, expect, it } from 'vitest';
import { EventBus, NodeDirectory } from '../../../src/bus/index.js';
import { sequentialIds } from '../../../src/ids.js';
import type { ChatRequest } from '../../../src/llm/index.js';
import { MemoryLogger } from '../../../src/logger.js';
import { NodeHost, createRuntime } from '../../../src/runtime/index.js';
import { SimulatedClock } from '../../../src/simulatedClock.js';
import { type Task, createTask } from '../../../src/task/index.js';
import type { ScriptStep } from '../../../src/testing.js';
import { cleanupAfterEach } from '../../support/cleanupAfterEach.js';
import { until } from '../../support/runtimeFixture.js';
import { ReplyingModel } from '../../support/workerModel.js';

const later = cleanupAfterEach();

/** The poet spawns a helper, then answers with whatever its spawn_agent call gave back. */
function poetStep(request: ChatRequest): ScriptStep {
  const result = request.messages.findLast((message) => message.role === 'tool');
  return result === undefined ? { toolCalls: [{ name: 'spawn_agent', arguments: { role: 'poet' } }] } : { text: `spawn said: ${result.content}` };
}

describe("a node's limits on what it asks of the owner", () => {
  it('an org request the owner never answers fails after orgRequestTimeoutMs (on the clock), naming the option, and the agent goes on', async () => {
    const clock = new SimulatedClock();
    const ids = sequentialIds();
    const bus = new EventBus({ clock });
    const host = new NodeHost({ bus, node: 'node-a', roles: ['poet'], model: new ReplyingModel(poetStep), clock, ids, orgRequestTimeoutMs: 5_000 });
    later(() => host.close());
    // An owner that has hung: it takes the node's requests and never answers them.
    const toOwner: Task[] = [];
    bus.subscribe({ to: 'owner' }, (task) => void toOwner.push(task), 'hung owner');

    const placed = await bus.request(
      createTask(
        {
          from: 'owner',
          to: 'node-a',
          action: 'nodes.spawn',
          parameters: {
            agent: { id: 'poet-1', roleId: 'role-poet', parentAgentId: null, createdAt: 0 },
            role: { id: 'role-poet', name: 'poet', prompt: 'You write poems.', createdBy: 'user', createdAt: 0 },
            about: null,
          },
        },
        { ids, clock },
      ),
      { timeoutMs: 60_000 },
    );
    expect(placed.status).toBe('completed');
    const asked = bus.request(createTask({ from: 'user', to: 'poet-1', action: 'execute', parameters: { text: 'get help' } }, { ids, clock }), {
      timeoutMs: 600_000,
    });
    await until(() => toOwner.some((task) => task.action === 'org.spawn'), 'the poet to ask the owner for a spawn', 100_000);

    // Just short of the limit nothing has given up; at it, the spawn fails and the poet is told why.
    let answered = false;
    void asked.then(() => (answered = true));
    clock.advance(4_999);
    await new Promise((resolve) => setImmediate(resolve));
    expect(answered).toBe(false);
    clock.advance(1);
    const answer = await asked;
    expect(answer).toMatchObject({ status: 'completed', from: 'poet-1' });
    expect(JSON.stringify(answer.result)).toContain('the owner did not answer org.spawn within 5000 ms (orgRequestTimeoutMs)');
    expect(toOwner.filter((task) => task.action === 'org.spawn')).toHaveLength(1);
    expect(host.hosted()).toEqual(['poet-1']);
  });

  it('a bad limit of a node or of the owner is refused naming it, before anything starts', async () => {
    const bus = new EventBus({});
    expect(() => new NodeHost({ bus, node: 'node-a', roles: ['poet'], orgRequestTimeoutMs: -1 })).toThrow(/orgRequestTimeoutMs/);
    expect(() => new NodeHost({ bus, node: 'node-a', roles: ['poet'], maxConcurrentToolCalls: 0 })).toThrow(/maxConcurrentToolCalls/);
    const directory = new NodeDirectory(bus, { clock: new SimulatedClock(), logger: new MemoryLogger() });
    await expect(createRuntime({ bus, nodes: { directory, nodeRequestTimeoutMs: 1.5 } })).rejects.toThrow(/nodes\.nodeRequestTimeoutMs/);
  });
});
