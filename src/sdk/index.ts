/**
 * The askgate TypeScript SDK: ask people questions from running programs through an askgate gateway.
 *
 * ```ts
 * import { AskgateClient, AskTimeoutError } from 'askgate';
 * const askgate = new AskgateClient({ url: 'http://127.0.0.1:8080', token: process.env.ASKGATE_TOKEN! });
 * const { answer } = await askgate.ask({ question: 'Ship it?', answer_format: 'confirm' });
 * ```
 */
export { AskgateClient } from './client.js';
export type { AskgateClientOptions, AskOptions, RequestOptions } from './client.js';
export { TailStream } from './tail.js';
export { AUDIT_EVENT_TYPES, canonicalJson, eventHash, verifyChain } from '../core/audit.js';
export type { AuditEvent, AuditEventType, ChainVerdict } from '../core/audit.js';
export type { AskExternalOptions, ExternalAnswer } from './external.js';
export {
  AskCancelledError,
  AskgateHttpError,
  AskgateNetworkError,
  AskgateSdkError,
  AskTimeoutError,
  AskUndeliverableError,
} from './errors.js';
export type {
  AnswerFormat,
  AnswerOf,
  AnswerStatus,
  AskAnswer,
  AskBody,
  AskFormatPart,
  AskOutcome,
  AsyncAskBody,
  AsyncTiming,
  InteractionEventType,
  InteractionPage,
  InteractionRecord,
  InteractionStatus,
  JsonSchema,
  ListOptions,
  MediaItem,
  ReplyTo,
  EscalationStepBody,
  RemindBody,
  RunBody,
  SuspendedAsk,
  SyncAskBody,
  SyncTiming,
  TailEvent,
} from './types.js';

export {
  DECLINE,
  ElicitationRefusedError,
  type ElicitationRoute,
  type ElicitThroughAskOptions,
  elicitThroughAsk,
  REPLY_TO_META,
} from '../mcp/elicitation.js';

export type { Continuation, ContinuationHandler, ContinuationWorker, ContinuationWorkerOptions } from './worker.js';

/**
 * Starts a continuation worker for `{"handler": "<name>"}` resumes (see `./worker.ts`). Loaded on first use, so a
 * program that only asks does not load BullMQ.
 */
export async function startWorker(
  options: import('./worker.js').ContinuationWorkerOptions,
): Promise<import('./worker.js').ContinuationWorker> {
  const { startWorker: start } = await import('./worker.js');
  return start(options);
}
