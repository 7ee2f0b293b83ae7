export { RunRecorder } from './recorder.js';
export { type RecordOption, RecordOptionSchema, defaultRecordingMaxBytes } from './recordOption.js';
export { RunReplayer } from './replayer.js';
export { readRecording } from './recordingReader.js';
export type { RecordingHeader, RecordedTool } from './recordingFormat.js';
export { type RunTape, approvalNote } from './runTape.js';
export type { RunTap } from './runTap.js';
