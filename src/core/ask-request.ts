import { invalid } from './errors.js';
import { parseMedia } from './media.js';
import { formatOf } from './formats/index.js';
import { noReview } from './formats/ask-fields.js';
import {
  ANSWER_FORMATS,
  type AnswerFormat,
  type EscalationStep,
  type JsonSchema,
  type MediaItem,
  type RemindSpec,
  type Quorum,
  type ReviewAction,
  type ReviewDecision,
  type RunSpec,
  type SurfaceTarget,
  type VerifierBinding,
} from './types.js';
import { literalWebhookRefusal } from './network-address.js';
import { parseEscalate, parseRemind } from './follow-up-fields.js';
import { parseApprovers, parseDeliver, parseQuorum } from './surface-fields.js';
import { checkChannelFits, type RecipientField } from './channel-fit.js';

/** A validated ask: every field of the ask body, defaults applied. */
export interface AskRequest {
  question: string;
  answer_format: AnswerFormat;
  choices: string[] | null;
  schema: JsonSchema | null;
  /** A review's proposed action; null on every other format. */
  action: ReviewAction | null;
  /** A review's decisions (the default applied); null on every other format. */
  decisions: ReviewDecision[] | null;
  group_id: string | null;
  /** Sync wait in seconds (default applied); null for async asks. */
  timeout: number | null;
  mode: 'sync' | 'async';
  /** Async deadline; null for sync asks. */
  expiry_at: Date | null;
  on_expiry: 'kill' | 'resume';
  channel: string | null;
  recipient: string | null;
  media: MediaItem[] | null;
  link: boolean;
  verifier: VerifierBinding | null;
  to: 'person' | 'caller';
  payload: unknown;
  run: RunSpec | null;
  /** Reminders in the question's threads while it is pending (follow-up-fields.ts). */
  remind: RemindSpec | null;
  /** More surfaces to deliver to while it is pending. */
  escalate: EscalationStep[] | null;
  /**
   * With `deliver`: the surfaces after the first (the first is `channel`/`recipient`); empty for an ask with one
   * surface or none.
   */
  extra_surfaces: SurfaceTarget[];
  /** Who may answer: token identities and `<channel>:<user id>`; null when anyone with the scope may. */
  approvers: string[] | null;
  /** A confirm question's quorum; null for first-answer-wins. */
  quorum: Quorum | null;
}

/** What a channel tells the ask core about itself. */
export interface ChannelCapabilities {
  supportsFormDelivery: boolean;
  /**
   * True when the channel shows a review (the action readably, approve and reject as taps, edit through its form);
   * a review asked on a channel that does not is refused with a 400 naming the channel.
   */
  supportsReview?: boolean;
  /**
   * A channel whose forms have limits of their own beyond the channel-deliverable subset (a Discord modal holds five
   * text inputs) says why a schema cannot be delivered there: the property and the reason; null when it can. Asked
   * after the subset check, so the ask is refused with a 400 naming the property before anything is stored.
   */
  formRefusal?(schema: JsonSchema): { property: string; reason: string } | null;
  /**
   * A channel whose recipients have a form of their own (an email address) says why `recipient` is not one; null
   * when it is. Asked while the ask is checked, so a malformed recipient is a 400 naming the field, nothing stored.
   */
  recipientRefusal?(recipient: string | null): string | null;
  /**
   * A channel that can write only to recipients it has heard from (Teams keeps each conversation's service address
   * from the activities it received there) says, looking at its channel state, why `recipient` cannot be reached;
   * null when it can. Asked after the ask's rules and before anything is stored, so the ask is a 400 naming the
   * recipient's field.
   */
  recipientUnreachable?(recipient: string): Promise<string | null>;
}

export interface AskContext {
  nowMs: number;
  defaultTimeoutSeconds: number;
  retentionWaitingMinutes: number;
  idleTtlSeconds: number;
  /** The registered channel of that name, or undefined. */
  channel(name: string): ChannelCapabilities | undefined;
  registeredChannels(): string[];
  /** ASKGATE_WEBHOOK_ALLOW_PRIVATE: a resume webhook may name a loopback, private or link-local address. */
  allowPrivateWebhooks?: boolean;
}

/** The ask body's string limits, shared by the rules below and the published schema (`ask-body-schema.ts`). */
export const ASK_TEXT_LIMITS = { question: 4096, groupId: 200, recipient: 200, channel: 100, runId: 200 } as const;

/** Every field of the ask body; any other is refused by name. The published schema (`ask-body-schema.ts`) has these. */
export const ASK_FIELDS = [
  'question',
  'answer_format',
  'choices',
  'schema',
  'action',
  'decisions',
  'group_id',
  'timeout',
  'mode',
  'expiry_at',
  'on_expiry',
  'channel',
  'recipient',
  'media',
  'link',
  'verifier',
  'to',
  'payload',
  'run',
  'remind',
  'escalate',
  'deliver',
  'approvers',
  'quorum',
] as const;
export type AskField = (typeof ASK_FIELDS)[number];
const KNOWN_FIELDS: ReadonlySet<string> = new Set(ASK_FIELDS);

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

function str(body: Record<string, unknown>, field: string, max: number, required: boolean): string | null {
  const v = body[field];
  if (v === undefined || v === null) {
    if (required) throw invalid(field, `${field} is required.`);
    return null;
  }
  if (typeof v !== 'string') throw invalid(field, `${field} must be a string.`);
  if (v.length === 0 && required) throw invalid(field, `${field} must not be empty.`);
  if (v.length > max) throw invalid(field, `${field} has ${v.length} characters; at most ${max} are allowed.`);
  return v;
}

function oneOf<T extends string>(
  body: Record<string, unknown>,
  field: string,
  allowed: readonly T[],
  fallback: T | null,
): T {
  const v = body[field];
  if (v === undefined || v === null) {
    if (fallback === null)
      throw invalid(field, `${field} is required; use one of ${allowed.map((a) => `"${a}"`).join(', ')}.`);
    return fallback;
  }
  if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v)) {
    throw invalid(field, `${field} must be one of ${allowed.map((a) => `"${a}"`).join(', ')}.`);
  }
  return v as T;
}

function parseRun(raw: unknown, allowPrivateWebhooks: boolean): RunSpec {
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

function parseExpiry(raw: unknown, ctx: AskContext, run: RunSpec | null): Date {
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

/**
 * Turns an untrusted ask body into an AskRequest, or throws a 400 that names the offending field.
 * Nothing is written here: the caller stores only what passed every rule.
 */
export function parseAskRequest(raw: unknown, ctx: AskContext): AskRequest {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw invalid('body', 'the body must be a JSON object.');
  const body = raw as Record<string, unknown>;
  if ('extensions' in body) throw invalid('extensions', 'extensions is not accepted; omit the field.');
  const unknown = Object.keys(body).find((k) => !KNOWN_FIELDS.has(k));
  if (unknown !== undefined)
    throw invalid(
      unknown,
      `${unknown} is not an ask field; check its spelling (fields are snake_case, e.g. answer_format).`,
    );

  const question = str(body, 'question', ASK_TEXT_LIMITS.question, true) as string;
  const answer_format = oneOf(body, 'answer_format', ANSWER_FORMATS, null);
  const to = oneOf(body, 'to', ['person', 'caller'] as const, 'person');
  const mode = to === 'caller' ? 'async' : oneOf(body, 'mode', ['sync', 'async'] as const, 'sync');
  if (to === 'caller' && body['mode'] === 'sync')
    throw invalid('mode', 'an ask with to "caller" is always async; drop mode or set it to "async".');

  // The format's own fields (a select's choices, a form's schema), refused by name on a format that takes none.
  const fields = {
    choices: body['choices'],
    schema: body['schema'],
    action: body['action'],
    decisions: body['decisions'],
  };
  if (answer_format !== 'review') noReview(fields);
  const { choices, schema, review = null } = formatOf(answer_format).askFields(fields);

  const group_id = str(body, 'group_id', ASK_TEXT_LIMITS.groupId, false);
  const media = parseMedia(body['media']);
  const link = body['link'] ?? false;
  if (typeof link !== 'boolean') throw invalid('link', 'link must be true or false.');
  const on_expiry = oneOf(body, 'on_expiry', ['kill', 'resume'] as const, 'kill');

  let payload: unknown = null;
  if (body['payload'] !== undefined) {
    if (to !== 'caller') throw invalid('payload', 'payload goes with to "caller" only.');
    payload = body['payload'];
  }

  let timeout: number | null = null;
  let expiry_at: Date | null = null;
  let run: RunSpec | null = null;
  if (body['run'] !== undefined) run = parseRun(body['run'], ctx.allowPrivateWebhooks === true);
  if (mode === 'sync') {
    if (body['expiry_at'] !== undefined)
      throw invalid('expiry_at', 'expiry_at goes with mode "async" only; a sync ask takes timeout.');
    if (run !== null) throw invalid('run', 'run goes with mode "async" only.');
    const t = body['timeout'];
    if (t === undefined || t === null) timeout = ctx.defaultTimeoutSeconds;
    else if (typeof t !== 'number' || !Number.isFinite(t) || t <= 0)
      throw invalid('timeout', 'timeout must be a number of seconds greater than 0.');
    else if (t > ctx.retentionWaitingMinutes * 60)
      // Bounded before it becomes a deadline: a huge number would overflow a Date and a Redis score.
      throw invalid(
        'timeout',
        `timeout is ${t} seconds; at most ${ctx.retentionWaitingMinutes * 60} (the retention horizon) are allowed.`,
      );
    else timeout = t;
  } else {
    if (body['timeout'] !== undefined)
      throw invalid('timeout', 'timeout and expiry_at bound the same wait; an async ask takes expiry_at only.');
    if (body['expiry_at'] === undefined)
      throw invalid('expiry_at', 'expiry_at is required for mode "async": an RFC 3339 moment with an offset.');
    if (run === null)
      throw invalid('run', 'an async ask needs the resumable run that parks: run {"run_id", "resume"}.');
    expiry_at = parseExpiry(body['expiry_at'], ctx, run);
  }

  let verifier: VerifierBinding | null = null;
  if (body['verifier'] !== undefined) {
    const v = body['verifier'];
    if (answer_format !== 'external') throw invalid('verifier', 'verifier applies to external asks only.');
    if (
      v === null ||
      typeof v !== 'object' ||
      Array.isArray(v) ||
      typeof (v as Record<string, unknown>)['name'] !== 'string'
    ) {
      throw invalid('verifier', 'verifier must be an object with a "name", e.g. {"name": "shared_secret"}.');
    }
    verifier = v as VerifierBinding;
  }

  const checkChannel = (name: string, field: string, target?: RecipientField): void =>
    checkChannelFits(
      name,
      field,
      ctx,
      { answer_format, schema, verifier, to, decisions: review?.decisions ?? null },
      target,
    );
  const deliver = parseDeliver(body, checkChannel);
  let channel = str(body, 'channel', ASK_TEXT_LIMITS.channel, false);
  let recipient = str(body, 'recipient', ASK_TEXT_LIMITS.recipient, false);
  if (channel !== null) checkChannel(channel, 'channel', { value: recipient, field: 'recipient' });
  else if (recipient !== null)
    throw invalid('recipient', 'recipient goes with channel; name the channel to deliver to.');
  // With deliver, the first surface is kept where a single-channel ask keeps its one (core/surfaces.ts).
  if (deliver !== null) {
    channel = deliver[0]?.channel ?? null;
    recipient = deliver[0]?.recipient ?? null;
  }
  const approvers = parseApprovers(body['approvers']);
  if (approvers !== null && to === 'caller')
    throw invalid('approvers', 'an ask to the caller is answered by its parent run alone; drop approvers.');
  if (approvers !== null && answer_format === 'external')
    throw invalid('approvers', 'an external question is answered by an outside system, not a person; drop approvers.');
  const quorum = parseQuorum(body['quorum'], answer_format, approvers);
  if (to === 'caller') {
    // The caller answers through the API as its parent run's identity; a public callback page would let anyone.
    if (answer_format === 'external')
      throw invalid('answer_format', 'an ask to the caller has no callback URL, so it cannot be "external".');
    if (link) throw invalid('link', 'an ask to the caller has no callback URL; drop link or set it to false.');
  }
  if (to === 'caller' && run?.parent_run_id == null) {
    throw invalid('run.parent_run_id', 'an ask to the caller needs run.parent_run_id: the run that answers it.');
  }
  // Follow-ups are scheduled from the ask up to its deadline: each step must fall before it.
  const secondsToDeadline = expiry_at !== null ? (expiry_at.getTime() - ctx.nowMs) / 1000 : (timeout ?? 0);
  const followUps = {
    channel,
    secondsToDeadline,
    checkChannel,
  };
  const remind = parseRemind(body['remind'], followUps);
  const escalate = parseEscalate(body['escalate'], followUps);
  if ((remind !== null || escalate !== null) && to === 'caller')
    throw invalid(
      remind !== null ? 'remind' : 'escalate',
      'an ask to the caller has no person to remind or escalate to.',
    );
  return {
    question,
    answer_format,
    choices,
    schema,
    action: review?.action ?? null,
    decisions: review?.decisions ?? null,
    group_id,
    timeout,
    mode,
    expiry_at,
    on_expiry,
    channel,
    recipient,
    media,
    link,
    verifier,
    to,
    payload,
    run,
    remind,
    escalate,
    extra_surfaces: deliver === null ? [] : deliver.slice(1),
    approvers,
    quorum,
  };
}
