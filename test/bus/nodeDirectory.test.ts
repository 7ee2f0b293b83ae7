import { describe, expect, it } from 'vitest';
import { EventBus, NodeActions, type NodeChange, NodeDirectory, type NodeDirectoryOptions } from '../../src/bus/index.js';
import { sequentialIds } from '../../src/ids.js';
import { MemoryLogger } from '../../src/logger.js';
import { SimulatedClock } from '../../src/simulatedClock.js';
import { createTask } from '../../src/task/index.js';

/** A simulated clock whose timers can fire late, as a real one's do while the event loop is held: `now` runs `lagMs` ahead of their schedule. */
class LaggingClock extends SimulatedClock {
  lagMs = 0;
  override now(): number {
    return super.now() + this.lagMs;
  }
}

function owner(options: NodeDirectoryOptions = {}) {
  const clock = new LaggingClock();
  const logger = new MemoryLogger();
  const bus = new EventBus({ clock });
  const directory = new NodeDirectory(bus, { clock, logger }, options);
  const ids = sequentialIds();
  const send = (from: string, action: string, parameters: Parameters<typeof createTask>[0]['parameters']): void =>
    bus.publish(createTask({ from, to: 'owner', action, parameters }, { ids, clock }));
  const announce = (node: string, roles = ['poet'], incarnation = 'boot-1'): void =>
    send(node, NodeActions.announce, { node, roles, heartbeatMs: 1000, incarnation });
  const messages = (): string[] => logger.entries.map((entry) => entry.message);
  const changes: string[] = [];
  directory.changes$.subscribe(({ node, change }: NodeChange) => changes.push(`${node.node} ${change}`));
  return { clock, logger, directory, send, announce, messages, changes };
}

describe('NodeDirectory: the owner knows which nodes are up and which roles they host', () => {
  it('records a node from its announcement, once however often it repeats, and forgets it when it leaves', () => {
    const { directory, announce, send, messages } = owner();
    announce('node-a', ['poet', 'critic']);
    announce('node-a', ['poet', 'critic']);
    expect(directory.nodes()).toEqual([{ node: 'node-a', roles: ['poet', 'critic'], heartbeatMs: 1000, incarnation: 'boot-1', status: 'up' }]);
    expect(messages()).toEqual(['node joined']);
    // A late leave of an earlier incarnation is not this one leaving.
    send('node-a', NodeActions.leave, { node: 'node-a', roles: ['poet', 'critic'], heartbeatMs: 1000, incarnation: 'boot-0' });
    expect(directory.nodes()).toHaveLength(1);
    send('node-a', NodeActions.leave, { node: 'node-a', roles: ['poet', 'critic'], heartbeatMs: 1000, incarnation: 'boot-1' });
    expect(directory.nodes()).toEqual([]);
    expect(messages()).toEqual(['node joined', 'node left']);
  });

  it('marks a node unreachable after missedHeartbeats silent intervals, and up again when it announces', () => {
    const { clock, directory, announce, messages, changes } = owner({ missedHeartbeats: 3 });
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
    expect(changes).toEqual(['node-a joined', 'node-a unreachable', 'node-a reachable']);
  });

  it('does not take its own held event loop for a silent node: a timer that fires late listens one more heartbeat, once', () => {
    const { clock, directory, announce, changes } = owner({ missedHeartbeats: 3 });
    announce('node-a');
    // The owner's loop was held 2 s: its silence timer fires late, before the heartbeats queued meanwhile are read.
    clock.lagMs = 2000;
    clock.advance(3000);
    expect(directory.nodes()[0]?.status).toBe('up');
    announce('node-a');
    clock.advance(2999);
    expect(changes).toEqual(['node-a joined']);
    clock.lagMs = 4000;
    // Late again, and silent through the extra heartbeat too: a node that is really gone is still marked, one interval later.
    clock.advance(1);
    expect(directory.nodes()[0]?.status).toBe('up');
    clock.advance(999);
    expect(directory.nodes()[0]?.status).toBe('up');
    clock.advance(1);
    expect(directory.nodes()[0]?.status).toBe('unreachable');
    expect(changes).toEqual(['node-a joined', 'node-a unreachable']);
  });

  it('tells a restarted node (a new incarnation) from one that was only silent: what it hosted before is gone', () => {
    const { directory, announce, changes, logger } = owner();
    announce('node-a', ['poet'], 'boot-1');
    announce('node-a', ['poet'], 'boot-1');
    announce('node-a', ['poet'], 'boot-2');
    expect(changes).toEqual(['node-a joined', 'node-a restarted']);
    expect(directory.node('node-a')).toMatchObject({ incarnation: 'boot-2', status: 'up' });
    expect(logger.entries.at(-1)).toMatchObject({ level: 'warn', message: 'node restarted: what it hosted before is gone' });
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
    send('node-a', NodeActions.announce, { node: 'node-a', roles: [], heartbeatMs: 1000, incarnation: 'boot-1' });
    send('node-a', NodeActions.announce, { node: 'node-a', roles: ['po.et'], heartbeatMs: -1, incarnation: 'boot-1' });
    send('node-x', NodeActions.announce, { node: 'node-a', roles: ['poet'], heartbeatMs: 1000, incarnation: 'boot-1' });
    send('node-a', NodeActions.announce, { node: 'node-a', roles: ['poet'], heartbeatMs: 1000 });
    expect(directory.nodes()).toEqual([]);
    const reasons = logger.entries.filter((entry) => entry.message === 'dropped a malformed node announcement').map((entry) => String(entry.fields['reason']));
    expect(reasons).toHaveLength(4);
    expect(reasons[0]).toContain('roles: a node hosts at least one role');
    expect(reasons[1]).toContain('heartbeatMs');
    expect(reasons[2]).toBe('sent by node-x, not by the node it names');
    expect(reasons[3]).toContain('incarnation');
  });

  it('refuses bad options by name', () => {
    expect(() => owner({ maxNodes: 0 })).toThrow(/maxNodes/);
  });
});
