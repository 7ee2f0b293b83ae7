// Import cycles among the sources fail the gate (npm run cycles). Type-only imports count: a cycle
// through types still ties two modules together, and it is a runtime cycle as soon as one side
// needs a value. Layering (what may import what) is eslint-plugin-boundaries' job, in eslint.config.js.

const sources = '^(src|machines)/';
/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A module must not import itself through others; break the cycle with a smaller module both can import.',
      from: { path: sources },
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import the resolver cannot follow would hide its cycles; it must resolve.',
      from: { path: sources },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Keep `import type` edges: TypeScript erases them, but they are still dependencies.
    tsPreCompilationDeps: true,
    // NodeNext: `./x.js` in an import means `./x.ts` on disk; with the tsconfig, the resolver knows.
    tsConfig: { fileName: 'tsconfig.json' },
    // Packages' subpath exports (`@statelyai/inspect/server`), resolved as Node resolves an import.
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
