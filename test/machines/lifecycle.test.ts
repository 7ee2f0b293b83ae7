import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AnyStateMachine } from 'xstate';
import { agentMachine, memoryCompactorMachine, runtimeMachine, userEndpointMachine } from '../../machines/index.js';

// One lifecycle vocabulary: every actor's chart has the same four lifecycle states, in the same
// order, and the docs name only lifecycles the charts have.

/** The lifecycle every actor shares, in order. */
const lifecycle = ['spawning', 'running', 'draining', 'terminated'];

/** Each actor's chart, and the states it has beside the shared lifecycle. */
const charts: readonly { name: string; machine: AnyStateMachine; own: readonly string[] }[] = [
  // Where a terminated or drained agent's lanes are stopped and it is released.
  { name: 'agent', machine: agentMachine, own: ['stopping'] },
  { name: 'runtime', machine: runtimeMachine, own: [] },
  { name: 'user endpoint', machine: userEndpointMachine, own: [] },
  // A batch in progress, between running and draining.
  { name: 'memory compactor', machine: memoryCompactorMachine, own: ['compacting'] },
];

const topStates = (machine: AnyStateMachine): string[] => Object.keys(machine.root.states);

/** The lifecycle chains written in the docs (`spawning → running (…) → …`), as lists of top-level states. */
function documentedChains(): { file: string; chain: string[] }[] {
  const root = join(import.meta.dirname, '../..');
  const docs = readdirSync(join(root, 'docs'), { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.md'));
  return ['README.md', ...docs.map((file) => join('docs', file))].flatMap((file) =>
    [...readFileSync(join(root, file), 'utf8').matchAll(/`(spawning →[^`]*)`/g)].map((match) => ({
      file,
      // Sub-states in parentheses are not the lifecycle; `a ⇄ b` names two states in turn.
      chain: (match[1] ?? '')
        .replace(/\([^)]*\)/g, '')
        .split(/→|⇄/)
        .map((state) => state.trim()),
    })),
  );
}

describe('lifecycle vocabulary', () => {
  it.each(charts)('the $name chart has spawning → running → draining → terminated, and only its own states beside them', ({ machine, own }) => {
    const states = topStates(machine);
    expect(states.filter((state) => lifecycle.includes(state))).toEqual(lifecycle);
    expect(states.filter((state) => !lifecycle.includes(state))).toEqual(own);
    expect(machine.root.initial.target.map((node) => node.key)).toEqual(['spawning']);
    expect(machine.root.states['terminated']?.type).toBe('final');
  });

  it('every lifecycle the README and docs write out is the shared one or a chart’s own', () => {
    const chains = documentedChains();
    expect(chains.length).toBeGreaterThan(0);
    const known = [lifecycle, ...charts.map(({ machine }) => topStates(machine))].map((chain) => chain.join(' → '));
    for (const { file, chain } of chains) expect(known, `${file}: ${chain.join(' → ')}`).toContain(chain.join(' → '));
  });
});
