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
import { parseEscalate, parseRemind } from './follow-up-fields.js';
import { parseApprovers, parseDeliver, parseQuorum } from './surface-fields.js';
import { checkChannelFits, type RecipientField } from './channel-fit.js';
import type { ChannelCapabilities } from './channel-capabilities.js';
import { ASK_TEXT_LIMITS } from './ask-text-limits.js';
import { parseExpiry, parseRun } from './run-fields.js';

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
