import { canonicalJson } from '../audit.js';
import type { AskgateClient } from '../client.js';
import { AskgateSdkError } from '../errors.js';
import type { RequestOptions } from '../transport.js';
import type { EscalationStepBody, InteractionRecord, JsonSchema, RemindBody, RunBody } from '../types.js';
import type { ReviewAction, ReviewAnswer, ReviewDecision } from '../wire/interactions.js';
import type { ContinuationAskResult, ContinuationPayload, ConversationTurnPayload } from '../wire/continuations.js';

/** What a handler or webhook receives; only a `run.resumed` of a run parked by an adapter can be read here. */
export type ReviewContinuation = ContinuationPayload | ConversationTurnPayload;

/**
 * What the three framework adapters share: one review ask (`answer_format: "review"`) per action a framework pauses
 * on, asked and waited on (sync), or parked on a run (async) and read back from the run's continuation. Each adapter
 * only translates its framework's pause into `PendingReview`s and the answers into its framework's resume value.
 */

export type { ReviewAction, ReviewAnswer, ReviewDecision } from '../wire/interactions.js';

/** Where a review goes and what it says: the ask fields an adapter does not set itself. */
export interface ReviewFields {
  /** The question shown above the action. Default: `Allow <tool name>?`. */
  question?: string | ((action: ReviewAction) => string);
  channel?: string;
  recipient?: string;
  deliver?: ReadonlyArray<{ readonly channel: string; readonly recipient: string }>;
  approvers?: readonly string[];
  group_id?: string;
  link?: boolean;
  remind?: RemindBody;
  escalate?: readonly EscalationStepBody[];
  /**
   * The JSON Schema of each tool's arguments, by tool name: sent as the ask's `schema`, which validates an edit and
   * lets a channel open its form for it. A framework's own schema for the action, when it has one, wins.
   */
  schemas?: Readonly<Record<string, JsonSchema>>;
}

/** Sync mode: every review is asked at once, and the call waits for all the answers. */
export interface ReviewWaitOptions extends ReviewFields, RequestOptions {
  /** Seconds each review stays open. Default: the gateway's `INTERACTIONS_DEFAULT_TIMEOUT_SECONDS`. */
  timeout?: number;
}

/** Async mode: the reviews park `run`, which resumes once every review is answered. */
export interface ReviewParkOptions extends ReviewFields, RequestOptions {
  /** The run that parks: `run_id`, `resume` (`{handler}` or `{webhook}`), and your own `state`, handed back. */
  run: RunBody;
  /** RFC 3339 with an offset: when the reviews expire. */
  expiry_at: string;
  /** Default `"kill"`. With `"resume"` an expired review resumes the run as a rejection (see `EXPIRED_MESSAGE`). */
  on_expiry?: 'kill' | 'resume';
}

/** What parking answered: the run and one interaction record per review, in the order of the framework's pause. */
export interface ParkedReviews {
  run: Record<string, unknown>;
  interactions: InteractionRecord[];
}

/** One action to review, as an adapter hands it here: `key` finds it again in the framework's pause. */
export interface PendingReview {
  key: string;
  action: ReviewAction;
  decisions: readonly ReviewDecision[];
  schema?: JsonSchema;
}

/** A review and how it was decided. */
export interface DecidedReview {
  key: string;
  action: ReviewAction;
  answer: ReviewAnswer;
}

/** The rejection an expired review becomes when its run parked with `on_expiry: "resume"`. */
export const EXPIRED_MESSAGE = 'Nobody reviewed this action before the review expired.';

/** The ask body of one review, without its timing. */
export function reviewAskBody(review: PendingReview, fields: ReviewFields): Record<string, unknown> {
  const { question, schemas, ...where } = fields;
  const action: ReviewAction = { name: review.action.name, args: review.action.args };
  // The contract caps a description at 4096 characters; a framework's generated one may be longer.
  if (review.action.description !== undefined) action.description = review.action.description.slice(0, 4096);
  const schema = review.schema ?? schemas?.[review.action.name];
  const text = typeof question === 'function' ? question(review.action) : (question ?? `Allow ${review.action.name}?`);
  return {
    ...where,
    question: text,
    answer_format: 'review',
    action,
    decisions: [...review.decisions],
    ...(schema === undefined ? {} : { schema }),
  };
}

/** Only the ask fields of an options object (not `signal`, `timeout`, `run`, ...). */
function fieldsOf(options: ReviewFields): ReviewFields {
  const { question, channel, recipient, deliver, approvers, group_id, link, remind, escalate, schemas } = options;
  const all = { question, channel, recipient, deliver, approvers, group_id, link, remind, escalate, schemas };
  return Object.fromEntries(Object.entries(all).filter(([, v]) => v !== undefined)) as ReviewFields;
}

/**
 * Sync mode: asks every review at once and waits for every answer, in the order given. When one wait fails (its
 * timeout, a cancel), the reviews still open are cancelled and the error is thrown.
 */
export async function decideReviews(
  client: AskgateClient,
  reviews: readonly PendingReview[],
  options: ReviewWaitOptions,
): Promise<DecidedReview[]> {
  if (reviews.length === 0) return [];
  const signal = options.signal;
  const timing = options.timeout === undefined ? {} : { timeout: options.timeout };
  const bodies = reviews.map((r) => ({ ...reviewAskBody(r, fieldsOf(options)), ...timing }));
  const created: InteractionRecord[] = [];
  try {
    for (const body of bodies)
      created.push(await client.request<InteractionRecord>('POST', '/api/interactions', body, { signal }));
    const answers = await Promise.all(created.map((record) => client.wait(record.id, { signal })));
    return reviews.map((r, i) => ({ key: r.key, action: r.action, answer: checked(r, answers[i]?.answer) }));
  } catch (error) {
    await Promise.allSettled(created.map((record) => client.cancel(record.id)));
    throw error;
  }
}

/** What a parked run's `state` holds: the reviews in order, what the adapter keeps, and the caller's own state. */
interface ParkedState {
  askgate_reviews: Array<{ key: string; action: ReviewAction; decisions: ReviewDecision[] }>;
  framework?: unknown;
  state?: unknown;
}

/**
 * Async mode: parks `options.run` on one review ask per action (`POST /api/runs`: all or none). The run's `state`
 * carries the reviews (and `framework`, what the adapter needs back) beside the caller's own `run.state`.
 */
export async function parkReviews(
  client: AskgateClient,
  reviews: readonly PendingReview[],
  options: ReviewParkOptions,
  framework?: unknown,
): Promise<ParkedReviews> {
  if (reviews.length === 0) throw new AskgateSdkError('there is nothing to review: the framework paused on no action');
  const state: ParkedState = {
    askgate_reviews: reviews.map((r) => ({ key: r.key, action: r.action, decisions: [...r.decisions] })),
    ...(framework === undefined ? {} : { framework }),
    ...(options.run.state === undefined ? {} : { state: options.run.state }),
  };
  const timing = {
    mode: 'async',
    expiry_at: options.expiry_at,
    ...(options.on_expiry ? { on_expiry: options.on_expiry } : {}),
  };
  const asks = reviews.map((r) => ({ ...reviewAskBody(r, fieldsOf(options)), ...timing }));
  return client.park({ run: { ...options.run, state }, asks }, { signal: options.signal });
}

/** The reviews of a resumed run, decided, in the order they were parked; with what the adapter and the caller kept. */
export interface ResumedReviews {
  reviews: DecidedReview[];
  framework: unknown;
  state: unknown;
}

/**
 * Reads a continuation of a run parked by `parkReviews`. A run parked on one review carries its answer; a run parked
 * on several carries them keyed by interaction id, and the gateway does not promise that order, so each is matched
 * to its review through the interaction's recorded `action` (`GET /api/interactions/{id}`). Two reviews of equal
 * actions are interchangeable, so the match is exact.
 */
export async function resumedReviews(
  client: AskgateClient,
  received: ReviewContinuation,
  options: RequestOptions = {},
): Promise<ResumedReviews> {
  if (received.type === 'conversation.turn')
    throw new AskgateSdkError(`a conversation turn (${received.run_id}) resumes no review: it parked nothing`);
  const continuation: ContinuationPayload = received;
  if (continuation.type !== 'run.resumed')
    throw new AskgateSdkError(`run ${continuation.run_id} was killed (${continuation.killed_by ?? 'no cause given'})`);
  const parked = parkedState(continuation);
  const results: Array<[string, ContinuationAskResult]> =
    continuation.ask_result !== undefined && continuation.interaction_id !== undefined
      ? [[continuation.interaction_id, continuation.ask_result]]
      : Object.entries(continuation.results ?? {});
  if (results.length !== parked.askgate_reviews.length)
    throw new AskgateSdkError(
      `run ${continuation.run_id} resumed with ${results.length} answers for ${parked.askgate_reviews.length} reviews`,
    );
  let ordered: ContinuationAskResult[];
  if (results.length === 1) ordered = [(results[0] as [string, ContinuationAskResult])[1]];
  else {
    const records = await Promise.all(results.map(([id]) => client.get(id, options)));
    const unused = records.map((record, i) => ({ action: canonicalJson(record.action), result: results[i] }));
    ordered = parked.askgate_reviews.map((review) => {
      const at = unused.findIndex((u) => u.action === canonicalJson(review.action));
      const found = at < 0 ? undefined : unused.splice(at, 1)[0]?.result;
      if (found === undefined)
        throw new AskgateSdkError(
          `run ${continuation.run_id}: no answered review matches action ${review.action.name}`,
        );
      return found[1];
    });
  }
  const reviews = parked.askgate_reviews.map((review, i) => ({
    key: review.key,
    action: review.action,
    answer: checked({ ...review }, expiredAsRejection(ordered[i]?.answer)),
  }));
  return { reviews, framework: parked.framework, state: parked.state };
}

function parkedState(continuation: ContinuationPayload): ParkedState {
  const state = continuation.state as Partial<ParkedState> | null;
  if (state === null || typeof state !== 'object' || !Array.isArray(state.askgate_reviews))
    throw new AskgateSdkError(`run ${continuation.run_id} was not parked by an askgate-sdk review adapter`);
  return state as ParkedState;
}

/** `on_expiry: "resume"` hands back the expiry marker: a review nobody answered is a rejection, never an approval. */
function expiredAsRejection(answer: unknown): unknown {
  const marker = answer as { $interaction?: unknown } | null;
  if (marker !== null && typeof marker === 'object' && marker.$interaction === 'expired')
    return { decision: 'reject', message: EXPIRED_MESSAGE };
  return answer;
}

/** The answer as a `ReviewAnswer`, refusing one that is not among the review's decisions. */
function checked(review: Pick<PendingReview, 'decisions' | 'action'>, answer: unknown): ReviewAnswer {
  const decision = (answer as { decision?: unknown } | null)?.decision;
  if (typeof decision !== 'string' || !(review.decisions as readonly string[]).includes(decision)) {
    // An expiry rejection is allowed even where reject was not offered: it is askgate's, not the person's.
    const expired = (answer as { message?: unknown }).message === EXPIRED_MESSAGE && decision === 'reject';
    if (!expired)
      throw new AskgateSdkError(
        `the review of ${review.action.name} was answered ${JSON.stringify(answer)}, ` +
          `not one of ${review.decisions.join(', ')}`,
      );
  }
  return answer as ReviewAnswer;
}
