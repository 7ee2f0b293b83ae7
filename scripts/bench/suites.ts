import { a2aRoundTrip } from './a2aRoundTrip.js';
import { actorDelivery } from './actorDelivery.js';
import { approvalsWaiting } from './approvalsWaiting.js';
import { busDelivery } from './busDelivery.js';
import { contextBuild } from './contextBuild.js';
import { dashboardSuite } from './dashboard.js';
import { graphSuite } from './graph.js';
import { httpService } from './httpService.js';
import { l4Vectors } from './l4Vectors.js';
import { mcpCall } from './mcpCall.js';
import { mcpServerRoundTrip } from './mcpServerRoundTrip.js';
import { memoryImport } from './memoryImport.js';
import { metricsScrape } from './metricsScrape.js';
import { natsTransport } from './natsTransport.js';
import { orgStoreSuite } from './orgStore.js';
import { reactLatency } from './reactLatency.js';
import { reactLoop } from './reactLoop.js';
import { reactMachinery } from './reactMachinery.js';
import { recordReplay } from './recordReplay.js';
import type { Row } from './report.js';
import { retrievalQuality } from './retrievalQuality.js';
import { routingSuite } from './routing.js';
import { sessionLanes } from './sessionLanes.js';
import { skillMatch } from './skillMatch.js';
import { spawnSuite } from './spawn.js';
import { tracingSuite } from './tracing.js';

/** What a suite needs that a machine with only Node and npm may lack (docs/install.md). */
export type SuiteNeed = 'nats-server' | 'hnswlib-node' | 'chromium';

/** A suite of the bench: its name (the heading of its table), what measures it, and what it needs beyond Node and npm. */
export interface Suite {
  readonly name: string;
  readonly run: () => Promise<Row[]>;
  readonly needs?: SuiteNeed;
  /** It sets state for the whole process (a global context manager): a smoke run gives it the process to itself, after the others. */
  readonly alone?: true;
}

/** Every suite `npm run bench` runs, in order; the smoke test checks each one printed its rows. */
export const suites: readonly Suite[] = [
  { name: 'bus delivery', run: busDelivery },
  { name: 'actor delivery', run: actorDelivery },
  { name: 'spawn', run: spawnSuite },
  { name: 'ReAct loop', run: reactLoop },
  { name: 'ReAct with a slow model', run: reactLatency },
  { name: 'ReAct machinery', run: reactMachinery },
  { name: 'org store', run: orgStoreSuite },
  { name: 'HTTP service', run: httpService },
  { name: 'metrics scrape', run: metricsScrape },
  { name: 'L4 vectors', run: l4Vectors, needs: 'hnswlib-node' },
  { name: 'context build', run: contextBuild },
  { name: 'memory import', run: memoryImport, needs: 'hnswlib-node' },
  { name: 'graph', run: graphSuite },
  { name: 'L4 retrieval quality', run: retrievalQuality },
  { name: 'session lanes', run: sessionLanes },
  { name: 'skill matching', run: skillMatch },
  { name: 'routing', run: routingSuite },
  { name: 'NATS transport', run: natsTransport, needs: 'nats-server' },
  { name: 'MCP tool call', run: mcpCall },
  { name: 'record and replay', run: recordReplay },
  { name: 'approvals waiting', run: approvalsWaiting },
  { name: 'A2A round trip', run: a2aRoundTrip },
  { name: 'MCP server round trip', run: mcpServerRoundTrip },
  { name: 'OpenTelemetry tracing', run: tracingSuite, alone: true },
  { name: 'dashboard', run: dashboardSuite, needs: 'chromium' },
];
