// @ts-check
import { realpathSync, statSync } from 'node:fs';
import { URL, fileURLToPath } from 'node:url';
import js from '@eslint/js';
import boundaries from 'eslint-plugin-boundaries';
import { defineConfig } from 'eslint/config';
import { builtinRules } from 'eslint/use-at-your-own-risk';
import tseslint from 'typescript-eslint';

const root = fileURLToPath(new URL('.', import.meta.url));

/**
 * Layers stacked on `below`, lowest first: each may import `below` and every layer before it,
 * except that one marked `besidePrevious` does not see the layer just before it (siblings).
 * @param {readonly string[]} below
 * @param {readonly { type: string, pattern: string, besidePrevious?: boolean }[]} stack
 */
const stacked = (below, stack) =>
  stack.map(({ type, pattern, besidePrevious }, index) => ({
    type,
    pattern,
    allow: [
      ...below,
      ...stack
        .slice(0, index)
        .map((layer) => layer.type)
        .filter((_, i) => !(besidePrevious === true && i === index - 1)),
    ],
  }));

/** Every layer of the runtime, for the layers above it. */
const runtimeLayers = [
  'runtime-config',
  'runtime-limits',
  'runtime-journal',
  'runtime-approvals',
  'runtime-memory-compactor',
  'runtime-memory',
  'runtime-agent-context',
  'runtime-agent',
  'runtime-society-remote',
  'runtime-society',
  'runtime-views',
  'runtime-nodes',
  'runtime',
];

/**
 * Import layers, lowest first. A layer may import itself and the layers it lists; anything
 * else is an error, so a lower layer can never reach up into a higher one.
 */
const layers = /** @type {const} */ ([
  // Public entry points re-export the whole library.
  { type: 'entry', pattern: ['src/index.ts', 'src/testing.ts', 'src/nodes.ts'], allow: ['*'] },
  { type: 'root', pattern: 'src/*.ts', allow: [] },
  { type: 'task', pattern: 'src/task/**', allow: ['root'] },
  { type: 'bus', pattern: 'src/bus/**', allow: ['root', 'task'] },
  // Siblings above the bus: none of them may import another.
  { type: 'llm', pattern: 'src/llm/**', allow: ['root', 'task', 'bus'] },
  { type: 'tools', pattern: 'src/tools/**', allow: ['root', 'task', 'bus'] },
  { type: 'memory', pattern: 'src/memory/**', allow: ['root', 'task', 'bus'] },
  { type: 'graph', pattern: 'src/graph/**', allow: ['root', 'task', 'bus'] },
  { type: 'org', pattern: 'src/org/**', allow: ['root', 'task', 'bus'] },
  { type: 'context', pattern: 'src/context/**', allow: ['root', 'task', 'bus', 'llm', 'tools', 'memory', 'graph', 'org'] },
  // Agent Skills: loaded from folders, matched against Tasks, their tool steps run through the tools layer.
  { type: 'skills', pattern: 'src/skills/**', allow: ['root', 'task', 'bus', 'tools', 'memory', 'context'] },
  // Record and replay: recorders and replayers of the clock, ids, model replies and tool results a run consumes.
  { type: 'replay', pattern: 'src/replay/**', allow: ['root', 'task', 'bus', 'llm', 'tools'] },
  // Picks the role a Task goes to: scores text with the memory's embedder, may ask the model.
  { type: 'routing', pattern: 'src/routing/**', allow: ['root', 'task', 'bus', 'llm', 'memory'] },
  // Pure machine definitions: they know Tasks and errors, never the runtime that provides them.
  { type: 'machines', pattern: 'machines/**', allow: ['root', 'task'] },
  // The runtime's own layers, lowest first: each folder of src/runtime may import only those
  // before it here (and the layers below the runtime); its loose files (runtime.ts) sit on top.
  ...stacked(
    ['root', 'task', 'bus', 'llm', 'tools', 'memory', 'graph', 'org', 'context', 'skills', 'routing', 'replay', 'machines'],
    [
      // The runtime's config schemas.
      { type: 'runtime-config', pattern: 'src/runtime/config/**' },
      // Intake gate, model-call limiter, limited model, held-until-durable.
      { type: 'runtime-limits', pattern: 'src/runtime/limits/**' },
      { type: 'runtime-journal', pattern: 'src/runtime/journal/**' },
      // Tool calls waiting for a person: kept in the journal, decided through the runtime, waited on by turns.
      { type: 'runtime-approvals', pattern: 'src/runtime/approvals/**' },
      { type: 'runtime-memory-compactor', pattern: 'src/runtime/memory/compactor/**' },
      { type: 'runtime-memory', pattern: 'src/runtime/memory/**' },
      { type: 'runtime-agent-context', pattern: 'src/runtime/agent/context/**' },
      { type: 'runtime-agent', pattern: 'src/runtime/agent/**' },
      // The owner's handles on agents that live on other nodes: below the society that holds them.
      { type: 'runtime-society-remote', pattern: 'src/runtime/society/remote/**' },
      { type: 'runtime-society', pattern: 'src/runtime/society/**' },
      // What `rt.agents`, `rt.agentPage`, `rt.memory` and `troupe memory` answer.
      { type: 'runtime-views', pattern: 'src/runtime/views/**' },
      // What spreads a society over processes (the node host); beside the views, not above them.
      { type: 'runtime-nodes', pattern: 'src/runtime/nodes/**', besidePrevious: true },
      { type: 'runtime', pattern: 'src/runtime/*.ts' },
    ],
  ),
  // The A2A protocol (src/a2a): a runtime served to A2A clients, and tools that delegate to remote A2A agents.
  {
    type: 'a2a',
    pattern: 'src/a2a/**',
    allow: ['root', 'task', 'bus', 'llm', 'tools', 'memory', 'graph', 'org', 'context', 'skills', 'routing', 'replay', 'machines', ...runtimeLayers],
  },
  {
    type: 'server',
    pattern: 'src/server/**',
    allow: ['root', 'task', 'bus', 'llm', 'tools', 'memory', 'graph', 'org', 'context', 'skills', 'routing', 'replay', 'machines', ...runtimeLayers, 'a2a'],
  },
  // The CLI's `serve` command starts the server, so the CLI sits just above it.
  {
    type: 'cli',
    pattern: 'src/cli/**',
    allow: [
      'root',
      'task',
      'bus',
      'llm',
      'tools',
      'memory',
      'graph',
      'org',
      'context',
      'skills',
      'routing',
      'replay',
      'machines',
      ...runtimeLayers,
      'a2a',
      'server',
    ],
  },
  // The dashboard's browser code (bundled by esbuild, served at /ui): it reaches the runtime only
  // over HTTP, so it imports nothing of src/.
  { type: 'ui', pattern: 'ui/**', allow: [] },
  // A source folder nobody has placed in a layer yet: only entry points, tests and scripts may
  // import it, so adding a folder forces a decision here instead of silently bypassing the rules.
  { type: 'unplaced', pattern: ['src/**', 'machines/**'], allow: ['*'] },
  { type: 'test', pattern: 'test/**', allow: ['*'] },
  { type: 'scripts', pattern: 'scripts/**', allow: ['*'] },
]);

// Sources import `./x.js` (NodeNext) while the file on disk is `x.ts`. Boundaries must see the
// real file to know its layer, so the node resolver is taught that mapping (no TS resolver needed).

/** @param {string} path */
const isFile = (path) => statSync(path, { throwIfNoEntry: false })?.isFile() === true;

/** @param {string} path */
const tsSourceOf = (path) => (path.endsWith('.js') ? `${path.slice(0, -3)}.ts` : undefined);

const sourceResolver = {
  extensions: ['.ts', '.js', '.mjs', '.json'],
  // `resolve` only passes results through `realpathSync` when symlinks are not preserved.
  preserveSymlinks: false,
  /** @param {string} path */
  isFile: (path) => {
    const ts = tsSourceOf(path);
    return isFile(path) || (ts !== undefined && isFile(ts));
  },
  /** @param {string} path */
  realpathSync: (path) => {
    const ts = tsSourceOf(path);
    if (!isFile(path) && ts !== undefined && isFile(ts)) return realpathSync(ts);
    try {
      return realpathSync(path);
    } catch {
      return path;
    }
  },
};

// Size limits (house style: small files, one concept each). Blank lines and comments do not count,
// so a limit never argues against explaining why.
const fileSize = { max: 400, skipBlankLines: true, skipComments: true };
const functionSize = { max: 80, skipBlankLines: true, skipComments: true, IIFEs: true };

const suiteFunctions = new Set(['describe', 'describeWithNatsServer']);

/**
 * True for the callback given to `describe` (also `describe.skip(…)`, `describe.each(…)(…)`), or to
 * `describeWithNatsServer`, the `describe` of tests that start a nats-server.
 * @param {import('estree').Node & { parent?: import('estree').Node }} node
 */
const isSuiteCallback = (node) => {
  const call = node.parent;
  if (call?.type !== 'CallExpression' || !call.arguments.includes(/** @type {never} */ (node))) return false;
  /** @type {import('estree').Node} */
  let callee = call.callee;
  while (callee.type === 'MemberExpression' || callee.type === 'CallExpression') {
    callee = callee.type === 'MemberExpression' ? callee.object : callee.callee;
  }
  return callee.type === 'Identifier' && suiteFunctions.has(callee.name);
};

const coreMaxLinesPerFunction = /** @type {import('eslint').Rule.RuleModule} */ (builtinRules.get('max-lines-per-function'));

/**
 * ESLint's max-lines-per-function, except that a `describe` callback is not measured: it is a
 * list of test cases, bounded by max-lines on the file. Its `it` callbacks and helpers are.
 * @type {import('eslint').Rule.RuleModule}
 */
const maxLinesPerFunctionBesideSuites = {
  meta: coreMaxLinesPerFunction.meta,
  create: (context) =>
    coreMaxLinesPerFunction.create(
      Object.create(context, {
        report: {
          /** @param {import('eslint').Rule.ReportDescriptor} descriptor */
          value: (descriptor) => {
            if (!('node' in descriptor) || !isSuiteCallback(descriptor.node)) context.report(descriptor);
          },
        },
      }),
    ),
};

export default defineConfig(
  // build/ holds the compiled benchmark (npm run bench): generated, like dist/.
  // Generated by openapi-typescript (test/support/openapiClientTypes.ts), checked by a test to be up to date.
  { ignores: ['dist/', 'build/', 'node_modules/', 'coverage/', '.troupe/', 'test/support/openapi.generated.ts'] },
  js.configs.recommended,
  tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: root,
      },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // Kept from the presets on purpose (bugs, not style): no-floating-promises,
      // no-misused-promises, no-explicit-any, no-unsafe-*, await-thenable, only-throw-error.
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      // Async generators and interface implementations are async by contract, with or without an await.
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // `(task) => bus.publish(task)` as a callback is clear; only flag void used as a value elsewhere.
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
      // Passing on a caught error or an abort signal's reason as-is is fine; rejecting with a literal is not.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingAny: true, allowThrowingUnknown: true }],
    },
  },
  {
    files: ['**/*.{ts,mts,cts}'],
    plugins: { boundaries },
    settings: {
      'boundaries/root-path': root,
      'boundaries/elements': layers.map(({ type, pattern }) => ({ type, pattern, mode: 'full' })),
      'boundaries/dependency-nodes': ['import', 'export', 'dynamic-import'],
      'import/resolver': { node: sourceResolver },
    },
    rules: {
      'boundaries/element-types': [
        'error',
        {
          default: 'disallow',
          message: '${file.type} must not import ${dependency.type}: a layer imports only layers below it, never a sibling (see `layers` in eslint.config.js)',
          rules: layers.map(({ type, allow }) => ({ from: [type], allow: [type, ...allow] })),
        },
      ],
    },
  },
  {
    files: ['**/*.{ts,js}'],
    rules: {
      'max-lines': ['error', fileSize],
      'max-lines-per-function': ['error', functionSize],
    },
  },
  {
    // Tests: the same limit on every function but the callbacks of `describe` (see above).
    files: ['test/**/*.ts'],
    plugins: { suites: { rules: { 'max-lines-per-function': maxLinesPerFunctionBesideSuites } } },
    rules: {
      'max-lines-per-function': 'off',
      'suites/max-lines-per-function': ['error', functionSize],
    },
  },
  {
    // Plain JavaScript config files are not in a TypeScript project.
    files: ['**/*.{js,mjs,cjs}'],
    extends: [tseslint.configs.disableTypeChecked],
  },
);
