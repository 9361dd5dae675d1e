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
export type { AskgateClientOptions, AskOptions } from './client.js';
export type { RequestOptions } from './transport.js';
export { TailStream } from './tail.js';
export { canonicalJson, eventHash, verifyChain } from './audit.js';
export type { ChainVerdict } from './audit.js';
export { AUDIT_EVENT_TYPES } from './wire/audit.js';
export type { AuditEvent, AuditEventType } from './wire/audit.js';
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
} from './elicitation.js';

export { startWorker } from './worker.js';
export type { Continuation, ContinuationHandler, ContinuationWorker, ContinuationWorkerOptions } from './worker.js';
export type {
  ClaimBody,
  ClaimResponse,
  CompleteBody,
  ContinuationAskResult,
  ContinuationPayload,
  ConversationTurnPayload,
  ExtendBody,
  ExtendResponse,
  FailBody,
  FailResponse,
} from './wire/continuations.js';
