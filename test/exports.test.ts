import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as machines from '../machines/index.js';
import * as main from '../src/index.js';
import * as nodes from '../src/nodes.js';
import * as testing from '../src/testing.js';

// Pinned on purpose: adding or removing a public name is an API change and should be a visible diff.
describe('public surface', () => {
  it('exports exactly these runtime values from "troupe"', () => {
    expect(Object.keys(main).sort()).toEqual([
      'Actions',
      'AgentIdSchema',
      'ApprovalDecisionSchema',
      'EdgeTypeSchema',
      'EventBus',
      'EventStatusSchema',
      'GraphEdgeSchema',
      'GraphLimitsSchema',
      'GraphNodeSchema',
      'GraphQuerySchema',
      'GraphRuleError',
      'GraphViewSchema',
      'HashedNgramEmbedder',
      'HybridRouter',
      'ImportItemSchema',
      'ImportReportSchema',
      'InProcessTransport',
      'MemoryLogger',
      'MemoryQuerySchema',
      'NeighbourhoodQuerySchema',
      'NodeKindSchema',
      'OfflineModel',
      'OpenAIEmbeddings',
      'OpenAIModel',
      'RankQuerySchema',
      'RememberInputSchema',
      'RememberedFactSchema',
      'RequestTimeoutError',
      'RetryingModel',
      'Runtime',
      'SkillActions',
      'TaskSchema',
      'TaskStatusSchema',
      'ToolAnnotationsSchema',
      'ToolRegistry',
      'TroupeError',
      'ValidationError',
      'WordVectorEmbedder',
      'allowedEdgeTypes',
      'awaitsApproval',
      'blockersOf',
      'contextNotesOf',
      'createLogger',
      'createRuntime',
      'createTask',
      'defaultRetryPolicy',
      'defineSkill',
      'defineTool',
      'edgeAllowed',
      'edgeTopology',
      'embeddingsFromEnv',
      'isBlocked',
      'loadSkillFolders',
      'metaTools',
      'modelChooser',
      'modelFromEnv',
      'modelGuardrail',
      'neighbourhood',
      'openGraphMemory',
      'parentTaskOf',
      'parseTask',
      'randomIds',
      'rankNeighbourhood',
      'recentNodes',
      'referencingEvents',
      'replayRuntime',
      'replyTo',
      'sequentialIds',
      'subjectOf',
      'subtasksOf',
      'systemClock',
      'taskText',
      'toolAnnotations',
      'toolFromFunction',
      'topologicalOrder',
    ]);
  });

  it('exports the multi-process API from "troupe/nodes"', () => {
    expect(Object.keys(nodes).sort()).toEqual([
      'NodeActions',
      'NodeAnnouncementSchema',
      'NodeDirectory',
      'NodeHost',
      'a2aAgentTool',
      'a2aRemoteRole',
      'connectNatsTransport',
      'remoteTool',
      'serveTools',
      'toolCallAction',
    ]);
  });

  it('exports the test doubles from "troupe/testing" and the machines from "troupe/machines"', () => {
    expect(Object.keys(testing).sort()).toEqual([
      'MemoryLogger',
      'ScriptedModel',
      'SimulatedClock',
      'expectSameAnswers',
      'replayModel',
      'sequentialIds',
      'societyOf',
      'startOpenAICompatibleServer',
    ]);
    expect(Object.keys(machines).sort()).toEqual(['agentMachine', 'memoryCompactorMachine', 'runtimeMachine', 'userEndpointMachine']);
  });

  it('declares those entry points, with types, in package.json', () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      exports: Record<string, { types?: string; import?: string } | string>;
      bin: Record<string, string>;
    };
    for (const entry of ['.', './machines', './testing', './nodes', './server']) {
      const target = pkg.exports[entry];
      expect(typeof target === 'object' && target.types?.endsWith('.d.ts') && target.import?.endsWith('.js')).toBe(true);
    }
    expect(pkg.bin['troupe']).toBe('dist/src/cli/main.js');
  });
});
