/**
 * Test doubles for troupe users: the scripted model and a simulated clock, so a society can be
 * tested deterministically without a network or real sleeps; and a recorded run's model and a
 * check that a recorded run still answers the same (docs/replay.md).
 */
import './checkZodPeer.js';
export { ScriptedModel, type ScriptStep, type ScriptReply } from './llm/index.js';
export { SimulatedClock } from './simulatedClock.js';
export { sequentialIds } from './ids.js';
export { MemoryLogger } from './logger.js';
export {
  startOpenAICompatibleServer,
  type OpenAICompatibleServer,
  type OpenAICompatibleServerOptions,
  type RecordedRequest,
  type ServerStep,
  type ServerAnswer,
  type EmbeddingStep,
  type FailureStep,
} from './llm/testing/openaiCompatibleServer.js';
export { societyOf, type SocietyView } from './runtime/index.js';
export { expectSameAnswers, replayModel } from './runtime/replayTesting.js';
