import type { ChatThread } from './checkpoints.js';
import type { ConversationTurnPayload } from './continuation.js';
import type { CompletionJob, HandlerJob } from './job-protocol.js';

/**
 * The JobBus port: how the run lifecycle hands work to a worker, whichever process runs it. Every job has a
 * deterministic id (below), so a second enqueue of one job — a racing answer, a retried webhook, another gateway,
 * the recovery sweep — adds nothing while the job is kept; a job whose handler throws is retried with backoff. The
 * BullMQ implementation is src/queue/bull-job-bus.ts. (Follow-up steps travel through the core's FollowUpPort.)
 *
 * | job       | one per                                              | run by                              |
 * |-----------|------------------------------------------------------|-------------------------------------|
 * | resume    | park of a run that became ready or dying             | askgate worker (resume.ts)          |
 * | handler   | continuation or turn of a `{"handler"}` target       | an SDK worker registered for it     |
 * | turn      | chat message routed to a webhook target              | askgate worker (conversations.ts)   |
 * | reply     | reply of a chat-reached run: at once, or per resume  | askgate worker (conversations.ts)   |
 */
export interface JobBus {
  /** Adds the resume job of park `generation` of `runId`; a no-op when that job exists already. */
  enqueueResume(runId: string, generation: number): Promise<void>;
  /** Hands a continuation (or a turn) to the SDK workers of `handler` under `jobId` (job-protocol.ts). */
  enqueueHandler(handler: string, jobId: string, data: HandlerJob): Promise<void>;
  /** Queues a chat turn for a webhook target under `jobId`. */
  enqueueTurn(jobId: string, payload: ConversationTurnPayload): Promise<void>;
  /** Queues a reply into a chat thread under its deterministic id (`replyJobId`). */
  enqueueReply(data: ReplyJobData): Promise<void>;
  /**
   * Starts this process's workers (a process that runs workers): every resume, turn and reply job, and every
   * completion an SDK worker reports, is handed to `handlers`. Once per process; `close` stops them.
   */
  work(handlers: RunJobHandlers): void;
  /** Stops the workers (each finishes the job it holds) and closes the queues. */
  close(): Promise<void>;
}

/** One resume job: the park it resumes, and its id (the continuation's `resume_id`). */
export interface ResumeJob {
  runId: string;
  generation: number;
  jobId: string;
}

/** What a worker process does with each job; a handler that throws has its job retried with backoff. */
export interface RunJobHandlers {
  resume(job: ResumeJob): Promise<void>;
  /** Absent where no route is configured: no turn or reply worker runs. */
  chat?: {
    turn(payload: ConversationTurnPayload): Promise<void>;
    reply(data: ReplyJobData): Promise<void>;
    /** The wait a failed turn or reply asked for (a platform's 429 retry_after), ms; null for the usual backoff. */
    retryAfterMs(error: Error | undefined): number | null;
  };
  /** Records a completion an SDK worker reported (job-protocol.ts); a throw leaves it to be read again. */
  completion(report: CompletionJob): Promise<void>;
}

/** A reply to post: the raw output of the target (mapped by the route when posted) and where it goes. */
export interface ReplyJobData {
  runId: string;
  generation: number;
  /** The run's chat thread, as its checkpoint holds it. */
  thread: ChatThread;
  output: unknown;
}

/** Handler names become queue names: a short safe alphabet (no `:`, which BullMQ refuses) keeps them readable. */
export const HANDLER_NAME = /^[A-Za-z0-9_.-]{1,100}$/;

/**
 * The one id of the resume job of one park of one run, which is also the continuation's `resume_id` (and its
 * webhook-id). Job ids may not hold `:` and run ids are free text, hence base64url.
 */
export function resumeJobId(runId: string, generation: number): string {
  return `resume-${Buffer.from(runId).toString('base64url')}-${generation}`;
}

/** The id of a turn's job (webhook or handler): one per chat message, so a redelivered message queues nothing. */
export function turnJobId(runId: string): string {
  return `turn-${Buffer.from(runId).toString('base64url')}`;
}

/**
 * The id of the reply job of a chat-reached run: generation 0 for the target's immediate answer to the turn, the
 * park's generation for the reply of that park's resume. One post per id, whoever enqueues it and how often.
 */
export function replyJobId(runId: string, generation: number): string {
  return `reply-${Buffer.from(runId).toString('base64url')}-${generation}`;
}
