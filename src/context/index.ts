export { type BuildContextOptions, type BuiltContext, type ContextReport, type SourceReport, buildContext } from './buildContext.js';
export { type ContextBudget, type ContextBudgetInput, type SharedSource, ContextBudgetSchema, contextBudget, sharedSources } from './contextBudget.js';
export { type ContextSources, type RetrievalHit, type SessionSummary } from './contextSources.js';
export { type CompressedSteps, type CompressionResult, compressTurnSteps, summaryHeader } from './compressTurnSteps.js';
export { contextWarning } from './contextWarning.js';
export { TokenCounter, type TokenCounterOptions, sharedTokenCounter } from './tokenCounter.js';
