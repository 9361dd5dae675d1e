import type { ReplyTo } from '../core/types.js';
import type { ChatThread } from './checkpoints.js';
import type { RunView } from './run-store.js';

/** What a resumed run reads for one ask: the same three values a sync asker reads. */
export interface ContinuationAskResult {
  answer: unknown;
  reply_to: ReplyTo | null;
  params: Record<string, string> | null;
}

/**
 * The body of a continuation: POSTed to a `{"webhook"}` target, handed to a `{"handler"}` continuation. A single
 * park carries `interaction_id` and `ask_result`; a fan-out (POST /api/runs with several asks) carries `results`
 * keyed by interaction id. A kill carries `killed_by`: the ask that expired (or was cancelled), or `run:<child>`.
 */
export interface ContinuationPayload {
  type: 'run.resumed' | 'run.killed';
  run_id: string;
  /** The identity the run resumes under: the one that parked it. */
  identity: string;
  kind: 'tool' | 'agent';
  /** The checkpoint state handed in at park time, unchanged. */
  state: unknown;
  /** Stable across reruns of this continuation (also the webhook-id): use it to make side effects idempotent. */
  resume_id: string;
  interaction_id?: string;
  ask_result?: ContinuationAskResult;
  results?: Record<string, ContinuationAskResult>;
  killed_by?: string | null;
}

export function continuationPayload(view: RunView, resumeId: string): ContinuationPayload {
  const base = { run_id: view.runId, identity: view.owner, kind: view.kind, state: view.state, resume_id: resumeId };
  if (view.status === 'dying' || view.status === 'killed')
    return { type: 'run.killed', ...base, killed_by: view.killedBy };
  const only = view.asks.length === 1 ? view.asks[0] : undefined;
  if (only !== undefined)
    return { type: 'run.resumed', ...base, interaction_id: only.interactionId, ask_result: askResultOf(only) };
  // Keyed by interaction ids, new names every park: a plain `{}` would grow V8's hidden-class transition tree by one
  // entry per park (each insert copies it) until a full GC; a dictionary-mode object (no prototype) does not.
  const results: Record<string, ContinuationAskResult> = Object.create(null);
  for (const ask of view.asks) results[ask.interactionId] = askResultOf(ask);
  return { type: 'run.resumed', ...base, results };
}

/**
 * The body a route's target receives for a chat message that answers no pending question (docs/parks.md,
 * "Routes"): POSTed to a `{"webhook"}` target (Standard Webhooks, signed with the route identity's secret), handed
 * to a `{"handler"}` target. The target's output (response body / return value) is the immediate reply. To answer
 * later, the target parks under `run_id` (as `identity`): the run was bound to this thread, so its resumed output
 * is posted back here.
 */
export interface ConversationTurnPayload {
  type: 'conversation.turn';
  /** Park under this run id to reply late into the same thread; deterministic per chat message. */
  run_id: string;
  identity: string;
  route: string;
  /** Stable across redeliveries of this turn (also the webhook-id): use it to make side effects idempotent. */
  resume_id: string;
  turn: {
    channel: string;
    /**
     * The conversation and the message itself; `thread_id`, when present, is where replies go instead of under the
     * message (a Slack thread's root `ts`, for a message written inside a thread).
     */
    thread: { recipient: string; message_id: string; thread_id?: string };
    text: string | null;
    /**
     * The message the person quoted, `{message_id, status, text}` as an answer's `reply_to`; null when they quoted
     * nothing (never a question: quoting one would have answered it).
     */
    reply_to: ReplyTo | null;
    params: Record<string, string>;
    /** Who wrote it, as the channel names people (`telegram:@ada`). */
    from: string;
  };
}

/** The thread a turn came from: where the target's answer to it (and a late reply of a park under its run id) goes. */
export function turnThread(payload: ConversationTurnPayload): ChatThread {
  return {
    channel: payload.turn.channel,
    recipient: payload.turn.thread.recipient,
    replyToMessageId: payload.turn.thread.thread_id ?? payload.turn.thread.message_id,
    route: payload.route,
  };
}

function askResultOf(ask: RunView['asks'][number]): ContinuationAskResult {
  return {
    answer: ask.result?.answer ?? null,
    reply_to: ask.result?.reply_to ?? null,
    params: ask.result?.params ?? null,
  };
}
