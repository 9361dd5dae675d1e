import type { ReplyTo } from '../core/types.js';
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
  if (view.status === 'dying' || view.status === 'killed') return { type: 'run.killed', ...base, killed_by: view.killedBy };
  const results: Record<string, ContinuationAskResult> = {};
  for (const ask of view.asks) {
    results[ask.interactionId] = { answer: ask.result?.answer ?? null, reply_to: ask.result?.reply_to ?? null, params: ask.result?.params ?? null };
  }
  const only = view.asks.length === 1 ? view.asks[0] : undefined;
  if (only !== undefined) return { type: 'run.resumed', ...base, interaction_id: only.interactionId, ask_result: results[only.interactionId] as ContinuationAskResult };
  return { type: 'run.resumed', ...base, results };
}
