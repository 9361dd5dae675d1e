import { compactDelivery, compactFirstDelivery, expandDelivery, expandFirstDelivery } from './delivery-refs.js';
import { createHash } from 'node:crypto';
import type {
  AnswerFormat,
  AskResult,
  InteractionRecord,
  InteractionStatus,
  JsonSchema,
  MediaItem,
  ReviewAction,
  ReviewDecision,
  StoredInteraction,
  StoredSurface,
  VerifierBinding,
  Vote,
} from '../core/types.js';
import { invalid } from '../core/errors.js';
import { deliveryView } from '../core/record.js';

/**
 * The compact stored form of an interaction, shared by every store that serialises records.
 *
 * A stored record is one string, the *envelope*: twelve parts joined by `\n`, trailing empty parts dropped.
 *
 * | # | part          | form                                   |
 * |---|---------------|----------------------------------------|
 * | 1 | status        | one letter: p(ending) a(nswered) e(xpired) c(ancelled) |
 * | 2 | body          | compact JSON of the immutable members  |
 * | 3 | group id      | JSON string, or empty                  |
 * | 4 | ticket hash   | JSON string, or empty                  |
 * | 5 | schema hash   | JSON string, or empty                  |
 * | 6 | result        | JSON, or empty                         |
 * | 7 | resolved_at   | JSON string, or empty                  |
 * | 8 | delivery      | JSON, or empty (first surface; delivery-refs.ts compactFirstDelivery) |
 * | 9 | audit trail   | JSON array of event entries, or empty (audit-trail.ts) |
 * | 10| audit seal    | JSON string of concatenated hashes, or empty (audit-trail.ts) |
 * | 11| extra surfaces| JSON `[{"ch", "rc"?, "d"?}]`, or empty (core/surfaces.ts) |
 * | 12| votes         | JSON `[{"by", "answer", "surface", "at"}]`, or empty |
 *
 * Every part but the status is JSON text, and `JSON.stringify` never writes a raw newline, so `\n` cannot occur
 * inside a part: Lua scripts split and rejoin the envelope with plain string operations and never re-encode JSON
 * (cjson would turn `[]` into `{}`). Parts 3 to 5 sit outside the body because scripts need them to name the keys a
 * transition touches. One string rather than a Redis hash because a hash field longer than
 * `hash-max-listpack-value` (64 bytes by default, and every body is longer) turns the hash into a hashtable, which
 * costs about 170 bytes more per pending ask.
 *
 * The body uses short member names; members holding their default (null, false, "sync", "person", "kill") are
 * omitted and restored on decode, and timestamps that round-trip through `toISOString()` are kept as epoch
 * milliseconds; the deadline is then written as milliseconds after `ca` (`dd`), and a select's format is left to its
 * choices (`c` present and no `f` means select); decode also reads a select that names its `f`. A form
 * schema is stored once per distinct schema, named by the SHA-256 of its JSON. Pending asks
 * are the bulk of what a store holds, so every byte here is multiplied by the queue length.
 */
export interface CompactBody {
  q: string;
  /** Omitted for a select with its choices (`c` present): a record without `f` is a select. */
  f?: AnswerFormat;
  ca: number | string;
  /** The deadline, when `dd` cannot stand for it (`ca` or the deadline kept verbatim, not as epoch ms). */
  da?: number | string;
  /** The deadline as milliseconds after `ca`, when both are epoch milliseconds (5 bytes shorter than `da`). */
  dd?: number;
  ab: string;
  c?: string[];
  ch?: string;
  rc?: string;
  m?: 'async';
  md?: MediaItem[];
  l?: 1;
  v?: { name: string };
  to?: 'caller';
  p?: unknown;
  oe?: 'resume';
  rn?: string;
  /** The run of an async ask: stands for `m: 'async'` plus `rn` (the usual pair, 11 bytes shorter). */
  ra?: string;
  vb?: VerifierBinding;
  /** `remind` as `[every, max]`: the schedule, never per-reminder state (the queue holds that). */
  rm?: [number, number];
  /** `escalate` as `[after, channel, recipient]` triples, recipient null when absent. */
  es?: [number, string, string | null][];
  /** The approvers (token identities and `<channel>:<user id>`). */
  ap?: string[];
  /** The quorum's yes votes (present on a quorum question) and no votes (absent: 1). */
  qa?: number;
  qr?: number;
  /** A review's proposed action and its decisions (the schema of its args is the record's schema, part 5). */
  ac?: ReviewAction;
  dc?: ReviewDecision[];
  /**
   * Reserved, never written here: the Redis store appends its pending bucket's number as the body's last member
   * while the ask is pending (`,"pb":<n>}`, redis/scripts/includes/bucketSize.lua); decode ignores it.
   */
  pb?: number;
}

/** A form schema split out of a record: its JSON text and the hash that names it. */
export interface SharedSchema {
  json: string;
  hash: string;
}

export interface EncodedRecord {
  /** The envelope (see above). */
  envelope: string;
  /** The form schema to store beside it, when the record has one. */
  schema: SharedSchema | null;
}

/** The one-letter status codes of envelope part 1. */
export const STATUS_CODES: Readonly<Record<InteractionStatus, string>> = {
  pending: 'p',
  answered: 'a',
  expired: 'e',
  cancelled: 'c',
};
const STATUS_BY_CODE = new Map(
  Object.entries(STATUS_CODES).map(([status, code]) => [code, status as InteractionStatus]),
);

/** Parts 9 and 10 of an envelope: the audit trail and its seal ('' when absent; see audit-trail.ts). */
export function trailParts(envelope: string): { trail: string; seal: string } {
  const parts = envelope.split('\n');
  return { trail: parts[8] ?? '', seal: parts[9] ?? '' };
}

/** Encodes `record` as an envelope. `callback_url` is never stored: only the ticket's hash is. */
export function encodeRecord(record: StoredInteraction): EncodedRecord {
  const schema = record.schema === null ? null : shareSchema(record.schema);
  const parts = [
    STATUS_CODES[record.status],
    JSON.stringify(compactBody(record)),
    jsonOrEmpty(record.group_id),
    jsonOrEmpty(record.ticket_hash),
    jsonOrEmpty(schema?.hash ?? null),
    jsonOrEmpty(record.result),
    jsonOrEmpty(record.resolved_at),
    jsonOrEmpty(
      record.delivery === null ? null : compactFirstDelivery(record.delivery, record.channel, record.recipient),
    ),
    // Parts 9 and 10, the audit trail and its seal, are written by the store's own steps (audit-trail.ts).
    '',
    '',
    record.extra_surfaces === undefined || record.extra_surfaces.length === 0
      ? ''
      : JSON.stringify(record.extra_surfaces.map(compactSurface)),
    record.votes === undefined || record.votes.length === 0 ? '' : JSON.stringify(record.votes),
  ];
  while (parts.length > 2 && parts[parts.length - 1] === '') parts.pop();
  return { envelope: parts.join('\n'), schema };
}

/**
 * Rebuilds a stored record from its id, envelope and (when the envelope names one) its schema's JSON text.
 * Throws when the envelope is malformed or names a schema that is not supplied: both mean a corrupt store.
 */
export function decodeRecord(id: string, envelope: string, schemaJson: string | null): StoredInteraction {
  const [
    code = '',
    body = '',
    group = '',
    ticket = '',
    schemaHash = '',
    result = '',
    resolvedAt = '',
    delivery = '',
    _trail = '',
    _seal = '',
    surfaces = '',
    votes = '',
  ] = envelope.split('\n');
  const status = STATUS_BY_CODE.get(code);
  if (status === undefined || body === '') throw new Error(`interaction ${id}: malformed stored record`);
  if (schemaHash !== '' && schemaJson === null) {
    // The schema key's expiry is extended to outlive every record naming it, so this is corruption, not a race.
    throw new Error(`interaction ${id} names form schema ${schemaHash}, which is missing from the store`);
  }
  const b = JSON.parse(body) as CompactBody;
  const decoded: StoredInteraction = {
    id,
    status,
    question: b.q,
    answer_format: b.f ?? 'select',
    choices: b.c ?? null,
    schema: schemaHash === '' ? null : (JSON.parse(schemaJson ?? 'null') as JsonSchema),
    group_id: parseOrNull<string>(group),
    channel: b.ch ?? null,
    recipient: b.rc ?? null,
    mode: b.m ?? (b.ra !== undefined ? 'async' : 'sync'),
    created_at: expandTime(b.ca),
    deadline_at: b.dd !== undefined && typeof b.ca === 'number' ? expandTime(b.ca + b.dd) : expandTime(b.da ?? ''),
    asked_by: b.ab,
    media: b.md ?? null,
    link: b.l === 1,
    verifier: b.v ?? null,
    to: b.to ?? 'person',
    payload: b.p ?? null,
    on_expiry: b.oe ?? 'kill',
    run_id: b.rn ?? b.ra ?? null,
    result: parseOrNull<AskResult>(result),
    resolved_at: parseOrNull<string>(resolvedAt),
    ticket_hash: parseOrNull<string>(ticket),
    verifier_binding: b.vb ?? null,
    delivery:
      delivery === ''
        ? null
        : expandFirstDelivery(JSON.parse(delivery) as Record<string, string>, b.ch ?? null, b.rc ?? null),
    ...(b.rm === undefined ? {} : { remind: { every: b.rm[0], max: b.rm[1] } }),
    ...(b.es === undefined
      ? {}
      : { escalate: b.es.map(([after, channel, recipient]) => ({ after, channel, recipient })) }),
  };
  // Members of a multi-surface or approver question only: a plain record gets none of them (no undefined keys).
  if (surfaces !== '') decoded.extra_surfaces = (JSON.parse(surfaces) as CompactSurface[]).map(expandSurface);
  if (b.ap !== undefined) decoded.approvers = b.ap;
  if (b.qa !== undefined) decoded.quorum = { approve: b.qa, reject: b.qr ?? 1 };
  if (b.ac !== undefined) decoded.action = b.ac;
  if (b.dc !== undefined) decoded.decisions = b.dc;
  if (votes !== '') decoded.votes = JSON.parse(votes) as Vote[];
  return decoded;
}

/** An extra surface in envelope part 9: `ch` channel, `rc` recipient (absent: null), `d` references (absent: none). */
interface CompactSurface {
  ch: string;
  rc?: string;
  d?: Record<string, string>;
}

function compactSurface(surface: StoredSurface): CompactSurface {
  const c: CompactSurface = { ch: surface.channel };
  if (surface.recipient !== null) c.rc = surface.recipient;
  if (surface.delivery !== null) c.d = compactDelivery(surface.delivery);
  return c;
}

function expandSurface(c: CompactSurface): StoredSurface {
  return { channel: c.ch, recipient: c.rc ?? null, delivery: c.d === undefined ? null : expandDelivery(c.d) };
}

function compactBody(record: StoredInteraction): CompactBody {
  const ca = compactTime(record.created_at, 'created_at');
  const da = compactTime(record.deadline_at, 'deadline_at');
  const b: CompactBody = { q: record.question, ca, ab: record.asked_by };
  // A select with choices needs no `f` (decode reads a missing `f` as select); every other format names itself.
  if (record.answer_format !== 'select' || record.choices === null) b.f = record.answer_format;
  if (typeof ca === 'number' && typeof da === 'number') b.dd = da - ca;
  else b.da = da;
  if (record.choices !== null) b.c = record.choices;
  if (record.channel !== null) b.ch = record.channel;
  if (record.recipient !== null) b.rc = record.recipient;
  // An async ask with its run (every async ask the doors accept) is `ra`; `m` and `rn` cover any other pairing.
  const asyncRun = record.mode === 'async' && record.run_id !== null;
  if (record.mode === 'async' && !asyncRun) b.m = 'async';
  if (record.media !== null) b.md = record.media;
  if (record.link) b.l = 1;
  if (record.verifier !== null) b.v = record.verifier;
  if (record.to === 'caller') b.to = 'caller';
  if (record.payload !== null && record.payload !== undefined) b.p = record.payload;
  if (record.on_expiry === 'resume') b.oe = 'resume';
  if (asyncRun) b.ra = record.run_id as string;
  else if (record.run_id !== null) b.rn = record.run_id;
  if (record.verifier_binding !== null) b.vb = record.verifier_binding;
  if (record.remind !== undefined) b.rm = [record.remind.every, record.remind.max];
  if (record.escalate !== undefined) b.es = record.escalate.map((s) => [s.after, s.channel, s.recipient]);
  if (record.approvers !== undefined) b.ap = record.approvers;
  if (record.quorum !== undefined) {
    b.qa = record.quorum.approve;
    if (record.quorum.reject !== 1) b.qr = record.quorum.reject;
  }
  if (record.action !== undefined) b.ac = record.action;
  if (record.decisions !== undefined) b.dc = record.decisions;
  return b;
}

function jsonOrEmpty(value: unknown): string {
  return value === null || value === undefined ? '' : JSON.stringify(value);
}

function parseOrNull<T>(part: string): T | null {
  return part === '' ? null : (JSON.parse(part) as T);
}

/** The record as the doors and events show it: without the facts only the store keeps. */
export function toPublicRecord(record: StoredInteraction): InteractionRecord {
  // Destructuring drops the store-only members; the rest is the public shape.
  const {
    ticket_hash: _ticket,
    verifier_binding: _binding,
    delivery,
    extra_surfaces,
    callback_url: _url,
    ...rest
  } = record;
  // `rest` is this call's own copy: the deliveries are added to it in place (an undelivered question adds none).
  if ((delivery === null && extra_surfaces === undefined) || rest.channel === null) return rest;
  return Object.assign(
    rest,
    deliveryView({ channel: rest.channel, recipient: rest.recipient, status: rest.status, delivery, extra_surfaces }),
  );
}

/** The epoch milliseconds of an RFC 3339 timestamp a record carries; refuses one that does not parse. */
export function timeMs(value: string, field: string): number {
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw invalid(field, `${field} must be an RFC 3339 date-time, got ${JSON.stringify(value)}.`);
  return ms;
}

/** The hash naming a schema: SHA-256 (hex) of its JSON text. */
export function shareSchema(schema: JsonSchema): SharedSchema {
  const json = JSON.stringify(schema);
  return { json, hash: createHash('sha256').update(json).digest('hex') };
}

function compactTime(value: string, field: string): number | string {
  const ms = timeMs(value, field);
  // Only a canonical UTC string survives as a number; any other spelling (an offset, fewer digits) is kept verbatim
  // so a read returns exactly what was written.
  return new Date(ms).toISOString() === value ? ms : value;
}

function expandTime(value: number | string): string {
  return typeof value === 'number' ? new Date(value).toISOString() : value;
}
