import { describe, expect, it } from 'vitest';
import { EventBus, NodeActions, NodeDirectory, type NodeDirectoryOptions } from '../../src/bus/index.js';
import { sequentialIds } from '../../src/ids.js';
import { MemoryLogger } from '../../src/logger.js';
import { SimulatedClock } from '../../src/simulatedClock.js';
import { createTask } from '../../src/task/index.js';

function owner(options: NodeDirectoryOptions = {}) {
  const clock = new SimulatedClock();
  const logger = new MemoryLogger();
  const bus = new EventBus({ clock });
  const directory = new NodeDirectory(bus, { clock, logger }, options);
  const ids = sequentialIds();
  const send = (from: string, action: string, parameters: Parameters<typeof createTask>[0]['parameters']): void =>
    bus.publish(createTask({ from, to: 'owner', action, parameters }, { ids, clock }));
  const announce = (node: string, roles = ['poet']): void => send(node, NodeActions.announce, { node, roles, heartbeatMs: 1000 });
  const messages = (): string[] => logger.entries.map((entry) => entry.message);
  return { clock, logger, directory, send, announce, messages };
}

describe('NodeDirectory: the owner knows which nodes are up and which roles they host', () => {
  it('records a node from its announcement, once however often it repeats, and forgets it when it leaves', () => {
    const { directory, announce, send, messages } = owner();
    announce('node-a', ['poet', 'critic']);
    announce('node-a', ['poet', 'critic']);
    expect(directory.nodes()).toEqual([{ node: 'node-a', roles: ['poet', 'critic'], heartbeatMs: 1000, status: 'up' }]);
    expect(messages()).toEqual(['node joined']);
    send('node-a', NodeActions.leave, { node: 'node-a', roles: ['poet', 'critic'], heartbeatMs: 1000 });
    expect(directory.nodes()).toEqual([]);
    expect(messages()).toEqual(['node joined', 'node left']);
  });

  it('marks a node unreachable after missedHeartbeats silent intervals, and up again when it announces', () => {
    const { clock, directory, announce, messages } = owner({ missedHeartbeats: 3 });
    announce('node-a');
    clock.advance(2999);
    announce('node-a');
    clock.advance(2999);
    expect(directory.nodes()[0]?.status).toBe('up');
    clock.advance(1);
    expect(directory.nodes()[0]?.status).toBe('unreachable');
    expect(messages()).toEqual(['node joined', 'node unreachable: no heartbeat']);
    announce('node-a');
    expect(directory.nodes()[0]?.status).toBe('up');
    expect(messages().at(-1)).toBe('node reachable again');
  });

  it('refuses a node past maxNodes with a log line, still hearing the ones it knows', () => {
    const { directory, announce, logger } = owner({ maxNodes: 2 });
    announce('node-a');
    announce('node-b');
    announce('node-c');
    announce('node-a');
    expect(directory.nodes().map((node) => node.node)).toEqual(['node-a', 'node-b']);
    expect(logger.entries).toContainEqual({
      level: 'warn',
      message: 'refused a node: the society has maxNodes nodes already',
      fields: { node: 'node-c', maxNodes: 2 },
    });
  });

  it('drops a malformed or impersonating announcement from the wire with a log line', () => {
    const { directory, send, logger } = owner();
    send('node-a', NodeActions.announce, { node: 'node-a', roles: [], heartbeatMs: 1000 });
    send('node-a', NodeActions.announce, { node: 'node-a', roles: ['po.et'], heartbeatMs: -1 });
    send('node-x', NodeActions.announce, { node: 'node-a', roles: ['poet'], heartbeatMs: 1000 });
    expect(directory.nodes()).toEqual([]);
    const reasons = logger.entries.filter((entry) => entry.message === 'dropped a malformed node announcement').map((entry) => String(entry.fields['reason']));
    expect(reasons).toHaveLength(3);
    expect(reasons[0]).toContain('roles: a node hosts at least one role');
    expect(reasons[1]).toContain('heartbeatMs');
    expect(reasons[2]).toBe('sent by node-x, not by the node it names');
  });

  it('refuses bad options by name', () => {
    expect(() => owner({ maxNodes: 0 })).toThrow(/maxNodes/);
  });
});
