import type { AskContext } from './ask-request.js';
import { ASK_TEXT_LIMITS } from './ask-text-limits.js';
import { invalid } from './errors.js';
import { literalWebhookRefusal } from './network-address.js';
import type { RunSpec } from './types.js';

/**
 * The ask fields of a parked run: `run` (its id, kind, parent, state and how it resumes) and `expiry_at` (its
 * deadline, bounded by the checkpoint retention). Apart from the parser as follow-up-fields.ts and surface-fields.ts
 * are, each refusal naming its field.
 */

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** The `run` field: a resumable run, its resume target a handler or a public http(s) webhook. */
export function parseRun(raw: unknown, allowPrivateWebhooks: boolean): RunSpec {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw invalid('run', 'run must be an object {"run_id", "resume", "kind"?, "parent_run_id"?, "state"?}.');
  const r = raw as Record<string, unknown>;
  const extra = Object.keys(r).find((k) => !['run_id', 'kind', 'parent_run_id', 'state', 'resume'].includes(k));
  if (extra !== undefined)
    throw invalid(
      `run.${extra}`,
      `run.${extra} is not a run field; use run_id, kind, parent_run_id, state and resume.`,
    );
  if (typeof r['run_id'] !== 'string' || r['run_id'] === '' || r['run_id'].length > ASK_TEXT_LIMITS.runId)
    throw invalid('run.run_id', `run.run_id must be a string of 1..${ASK_TEXT_LIMITS.runId} characters.`);
  const kind = r['kind'] ?? 'tool';
  if (kind !== 'tool' && kind !== 'agent') throw invalid('run.kind', 'run.kind must be "tool" or "agent".');
  const parent = r['parent_run_id'] ?? null;
  if (parent !== null && (typeof parent !== 'string' || parent === ''))
    throw invalid('run.parent_run_id', 'run.parent_run_id must be a non-empty string.');
  const resume = r['resume'];
  let parsedResume: RunSpec['resume'];
  if (
    resume !== null &&
    typeof resume === 'object' &&
    typeof (resume as Record<string, unknown>)['webhook'] === 'string'
  ) {
    const url = (resume as Record<string, string>)['webhook'] as string;
    if (!/^https?:\/\//.test(url))
      throw invalid('run.resume.webhook', 'run.resume.webhook must be an absolute http(s):// URL.');
    const refusal = allowPrivateWebhooks ? null : literalWebhookRefusal(url);
    if (refusal !== null) throw invalid('run.resume.webhook', `run.resume.webhook ${refusal}`);
    parsedResume = { webhook: url };
  } else if (
    resume !== null &&
    typeof resume === 'object' &&
    typeof (resume as Record<string, unknown>)['handler'] === 'string'
  ) {
    parsedResume = { handler: (resume as Record<string, string>)['handler'] as string };
  } else {
    throw invalid('run.resume', 'run.resume is required: {"webhook": "<url>"} or {"handler": "<name>"}.');
  }
  return {
    run_id: r['run_id'],
    kind,
    parent_run_id: parent as string | null,
    state: r['state'] ?? null,
    resume: parsedResume,
  };
}

/** The `expiry_at` field: a future RFC 3339 moment inside the retention horizon (an agent run's leaves the idle TTL free). */
export function parseExpiry(
  raw: unknown,
  ctx: Pick<AskContext, 'nowMs' | 'retentionWaitingMinutes' | 'idleTtlSeconds'>,
  run: RunSpec | null,
): Date {
  if (typeof raw !== 'string' || !RFC3339.test(raw)) {
    throw invalid(
      'expiry_at',
      'expiry_at must be an RFC 3339 date-time with an offset, e.g. 2030-01-01T12:00:00Z or 2030-01-01T14:00:00+02:00.',
    );
  }
  const at = new Date(raw);
  if (Number.isNaN(at.getTime())) throw invalid('expiry_at', `expiry_at "${raw}" is not a real moment.`);
  if (at.getTime() <= ctx.nowMs) throw invalid('expiry_at', 'expiry_at is in the past; give a future moment.');
  const horizonMs = ctx.nowMs + ctx.retentionWaitingMinutes * 60_000;
  const agent = run?.kind === 'agent';
  const limitMs = agent ? horizonMs - ctx.idleTtlSeconds * 1000 : horizonMs;
  if (at.getTime() > limitMs) {
    const why = agent
      ? `an agent run's deadline must leave INTERACTIONS_IDLE_TTL_SECONDS (${ctx.idleTtlSeconds}s) of the checkpoint retention free`
      : 'the checkpoint retention would drop the parked run first';
    throw invalid(
      'expiry_at',
      `expiry_at is past the retention horizon (${new Date(limitMs).toISOString()}): ${why}; choose an earlier moment.`,
    );
  }
  return at;
}
