export * from './messages.js';
export type { ChatOptions, EmbedOptions, ModelClient } from './modelClient.js';
export { hashEmbedding, hashEmbeddingDims } from './hashEmbedding.js';
export { collectReply, type CollectedReply } from './collect.js';
export { ScriptedModel, type ScriptStep } from './scriptedModel.js';
export { streamReply, type ScriptReply } from './scriptedReply.js';
export { OfflineModel, offlineNotice, planReply } from './offlineModel.js';
