export { type ContextReport, assembleContext, buildContext } from './assembleContext.js';
export { type ContextBudget, type ContextBudgetInput, contextBudget } from './contextBudget.js';
export { type ContextSources, type RetrievalHit, type SessionSummary } from './contextSources.js';
export { compressTurnSteps, summaryHeader } from './compressTurnSteps.js';
export { contextWarning } from './contextWarning.js';
export { TokenCounter, sharedTokenCounter } from './tokenCounter.js';
export { type FittedTurn, fitTurnSteps, roomForTurn } from './fitTurnSteps.js';
