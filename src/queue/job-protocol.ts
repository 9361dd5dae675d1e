import { continuationPayload, turnThread } from '../park/continuation.js';
import type { ContinuationPayload, ConversationTurnPayload } from '../park/continuation.js';
import type { ChatThread, RunView } from '../park/run-store.js';

/**
 * The job protocol between the gateway and SDK continuation workers (docs/sdk.md, "Job protocol"): all a worker
 * knows of the gateway is two queue names and the data below. It never reads a run or runs the gateway's Lua.
 *
 * 1. The gateway adds a handler job to `handler-<name>` (id: the continuation's `resume_id`), its data a
 *    {@link HandlerJob}: the body the handler receives, plus the version, the park's generation and the thread.
 * 2. The worker checks that no completion with that id is in the `completed` queue (a completion reported is never
 *    run again), runs the handler, and reports its return value as a {@link CompletionJob} added to `completed`
 *    under the same id, before its handler job completes.
 * 3. The askgate worker consumes `completed`: it queues the chat reply (when the run came from a chat thread) and
 *    records completion in the run (the run-complete script).
 *
 * Compatibility: both sides accept version 1; a job of any other version fails at once (no retries) with a message
 * saying which version the reader speaks.
 */
export const JOB_PROTOCOL_VERSION = 1;

/** The queue of completion reports, consumed by the askgate worker. */
export const COMPLETED_QUEUE = 'completed';

/** What protocol-versioned jobs carry in common. */
interface Versioned {
  /** The protocol version: 1. */
  v: number;
  /** The continuation's id (also its job id, in both queues). */
  resume_id: string;
  run_id: string;
  /** The park the continuation belongs to; 0 for a conversation turn (it belongs to no park). */
  generation: number;
  /** The chat thread the run came from, where the gateway posts the handler's return value; null when none. */
  thread: ChatThread | null;
}

/** A handler job's data: the continuation body (what the handler receives, without `attempt`) and the envelope. */
export type HandlerJob = Versioned & (ContinuationPayload | ConversationTurnPayload);

/** A completion report's data. */
export interface CompletionJob extends Versioned {
  type: (ContinuationPayload | ConversationTurnPayload)['type'];
  /** Which attempt completed (1 on the first run). */
  attempt: number;
  /** The handler's return value (null for undefined). */
  output: unknown;
}

/** The handler job of the park `run` is in (ready or dying), under `resumeId`. */
export function handlerJob(run: RunView, resumeId: string): HandlerJob {
  return {
    v: JOB_PROTOCOL_VERSION,
    generation: run.generation,
    thread: run.thread,
    ...continuationPayload(run, resumeId),
  };
}

/** The handler job of a conversation turn. */
export function turnHandlerJob(payload: ConversationTurnPayload): HandlerJob {
  return { v: JOB_PROTOCOL_VERSION, generation: 0, thread: turnThread(payload), ...payload };
}

/** The continuation body a handler receives from its job: the envelope fields stripped. */
export function continuationOf(job: HandlerJob): ContinuationPayload | ConversationTurnPayload {
  const { v: _v, generation: _g, thread: _t, ...payload } = job;
  return payload;
}

/** Why a job of another protocol version cannot be read here, or null when it can. */
export function unsupportedVersion(data: { v?: unknown }, reader: string): string | null {
  if (data.v === JOB_PROTOCOL_VERSION) return null;
  return `job protocol version ${JSON.stringify(data.v ?? null)} is not one ${reader} reads (it reads v${JOB_PROTOCOL_VERSION}); run an askgate gateway and SDK of the same protocol version.`;
}
