import type { ActionPick } from './action-code.js';
import type { AnswerOffer, AnswerVerdict } from './answer-path.js';
import { type AnswerViolation, AskgateError, type Refusal } from './errors.js';
import { surfacesOf, surfaceView } from './surfaces.js';
import type { ReplyTo, ReviewDecision, StoredInteraction, StoredSurface } from './types.js';

/**
 * The one inbound dispatcher. A channel decodes its platform event (a tap, a reply, a submitted form) into an
 * `InboundAction` — which question, the surface it came on, the pick, who, params, reply_to — and the core runs the
 * same steps for every channel:
 *
 *   locate → surface check → status check → pick → offer
 *
 * and returns one `DispatchOutcome`, which the channel words for its platform. Nothing a person did on one surface
 * can answer a question through another: a tap whose chat, message or number is not one of the question's surfaces
 * on that channel is `wrong_surface` and changes nothing. A question that has ended is reported before anything is
 * read from the event (`closed`). Refusals come back as data (`{code, field, reason}`), never thrown.
 */

/** Which question an event is about. */
export type QuestionRef =
  | { by: 'id'; id: string }
  /** The delivery reference of the message it quotes or sits on (`ChannelCore.findByDelivery`). */
  | { by: 'delivery'; ref: string }
  /**
   * The person's latest pending question on the channel (a reply that quotes nothing): `recipients` are the
   * spellings of that person the asker may have used; `prefer` picks among them (the latest it accepts wins).
   */
  | { by: 'recipient'; recipients: readonly string[]; prefer?: (question: StoredInteraction) => boolean };

/** Where the event came from: the channel and what it says of the chat, message or number it came from. */
export interface SurfaceClaim {
  channel: string;
  /** The sender or conversation, when the surface is a person's (a phone number, a web chat recipient). */
  recipient?: string;
  /** How recipients compare: as written (default), or by their digits alone (`+44 7…` = `447…`). */
  recipientSpelling?: 'exact' | 'digits';
  /**
   * Delivery entries the event names (the chat id, the message id): a surface matches when each entry is equal
   * to its own, or when it has no such entry (yet). A null value says the event names none: it matches only a
   * surface without that entry.
   */
  delivery?: Readonly<Record<string, string | null>>;
}

/** What a channel read from the event against the located question: an answer, or a refusal worded as data. */
export type ReadAnswer =
  | { ok: true; answer: unknown; params?: Record<string, string> }
  | { ok: false; refusal: Refusal; message: string; fields?: Readonly<Record<string, string>> };

/** What the person picked. */
export type Pick =
  | { kind: 'confirm'; value: boolean }
  /** The select's choice at `index` (an index that is no choice is refused by the format's check). */
  | { kind: 'choice'; index: number }
  /**
   * A review's decision: approve or reject from one tap (an action code's `review` pick), edit with the args its
   * form carried, respond (or reject) with the person's words. Checked by the review format like any answer.
   */
  | { kind: 'review'; decision: ReviewDecision; args?: Record<string, unknown>; message?: string }
  /** An answer as it stands (the web chat's buttons and form). */
  | { kind: 'answer'; answer: unknown }
  /** An answer read from the event with the question in hand (typed words, a submitted form). */
  | { kind: 'read'; read(question: StoredInteraction): ReadAnswer | Promise<ReadAnswer> }
  /** Nothing to offer (open a form, turn a page): locate and check only; `ready` when the question may be answered. */
  | { kind: 'look' };

export interface InboundAction {
  /** Tried in order: the first that finds a question decides (a ref that finds none passes to the next). */
  question: QuestionRef | readonly QuestionRef[];
  surface: SurfaceClaim;
  pick: Pick;
  /** The verified identity of who acted (`<channel>:<platform user id>`). */
  answeredBy: string;
  params: Record<string, string> | null;
  /** The message the answer quotes, or how to name it from the question. */
  replyTo: ReplyTo | null | ((question: StoredInteraction) => ReplyTo | null);
}

/** A refusal of an answer, as data with the core's sentence. */
export interface RefusedOutcome {
  kind: 'refused';
  question: StoredInteraction;
  /** `invalid_answer` (the format or schema, or the channel's own field check), `not_an_approver`, `callback_only`. */
  refusal: Refusal;
  message: string;
  /** Several fields refused at once by the channel's own check (a modal's), field → words. */
  fields?: Readonly<Record<string, string>>;
  /** Every violation of an answer the core refused (the answer door's `errors`), when there is one. */
  violations?: readonly AnswerViolation[];
}

/**
 * The one outcome of an inbound action. `question` is the question as the event's surface sees it.
 * - `answered`: this action's answer won; `voted`: counted toward a quorum, still pending;
 * - `ready`: a `look` found the question pending on this surface;
 * - `closed`: it had ended (`answered` by someone, `expired`, `cancelled`) — nothing offered;
 * - `refused`: the answer was not taken (see `RefusedOutcome`), the question unchanged;
 * - `not_found`: no question by that reference; `wrong_surface`: a question, but not on the surface the event came
 *   from — both change nothing.
 */
export type DispatchOutcome =
  | { kind: 'answered'; question: StoredInteraction; answer: unknown }
  | { kind: 'voted'; question: StoredInteraction }
  | { kind: 'ready'; question: StoredInteraction }
  | { kind: 'closed'; status: 'answered' | 'expired' | 'cancelled'; question: StoredInteraction }
  | RefusedOutcome
  | { kind: 'not_found' }
  | { kind: 'wrong_surface' };

/** What the dispatcher reads and the door it offers through (the store's lookups and the one answer path). */
export interface DispatcherDeps {
  get(id: string): Promise<StoredInteraction | null>;
  findByDelivery(channel: string, ref: string): Promise<StoredInteraction | null>;
  pendingFor(channel: string, recipients: readonly string[]): Promise<StoredInteraction[]>;
  /** The answer path: throws AskgateError for a refused answer. */
  offer(offer: AnswerOffer): Promise<AnswerVerdict>;
}

type Located = { kind: 'found'; question: StoredInteraction } | { kind: 'not_found' } | { kind: 'wrong_surface' };

export class InboundDispatcher {
  constructor(private readonly deps: DispatcherDeps) {}

  async dispatch(action: InboundAction): Promise<DispatchOutcome> {
    const located = await this.locate(action);
    if (located.kind !== 'found') return located;
    const question = located.question;
    // Before any state is reported: a verifier-bound question is answered only through its signed callback. A second
    // lock: the ask already refuses a verifier with a channel, so no channel surface should carry one.
    if (question.verifier_binding !== null) return refusedBy(question, callbackOnly(question));
    if (question.status !== 'pending') return { kind: 'closed', status: question.status, question };
    const picked = await pickAnswer(action.pick, question);
    if (picked.kind !== 'answer') return picked.outcome;
    const replyTo = typeof action.replyTo === 'function' ? action.replyTo(question) : action.replyTo;
    const params = picked.params === undefined ? action.params : { ...(action.params ?? {}), ...picked.params };
    try {
      const verdict = await this.deps.offer({
        interactionId: question.id,
        answer: picked.answer,
        replyTo,
        params,
        surface: action.surface.channel,
        answeredBy: action.answeredBy,
        // Just read: the answer path checks and claims without reading it again.
        record: question,
      });
      if (verdict === 'answered') return { kind: 'answered', question, answer: picked.answer };
      if (verdict === 'voted') return { kind: 'voted', question };
      return { kind: 'closed', status: 'answered', question };
    } catch (err) {
      return outcomeOfRefusal(err, question);
    }
  }

  /** The first ref that finds a question decides; the question is seen as the claimed surface sees it. */
  private async locate(action: InboundAction): Promise<Located> {
    const refs: readonly QuestionRef[] = Array.isArray(action.question)
      ? (action.question as readonly QuestionRef[])
      : [action.question as QuestionRef];
    const { channel } = action.surface;
    for (const ref of refs) {
      const found = await this.find(ref, channel);
      if (found === null) continue;
      const seen = onSurface(found, action.surface);
      return seen === null ? { kind: 'wrong_surface' } : { kind: 'found', question: seen };
    }
    return { kind: 'not_found' };
  }

  private async find(ref: QuestionRef, channel: string): Promise<StoredInteraction | null> {
    if (ref.by === 'id') return this.deps.get(ref.id);
    if (ref.by === 'delivery') return this.deps.findByDelivery(channel, ref.ref);
    const pending = await this.deps.pendingFor(channel, ref.recipients);
    const prefer = ref.prefer;
    return (prefer === undefined ? undefined : pending.filter(prefer).at(-1)) ?? pending.at(-1) ?? null;
  }
}

/** The question as the claimed surface sees it, or null when it has no such surface. */
export function onSurface(question: StoredInteraction, claim: SurfaceClaim): StoredInteraction | null {
  const surface = surfacesOf(question).find((s) => s.channel === claim.channel && matches(s, claim));
  return surface === undefined ? null : surfaceView(question, surface);
}

function matches(surface: StoredSurface, claim: SurfaceClaim): boolean {
  if (claim.recipient !== undefined) {
    const spell = (r: string): string => (claim.recipientSpelling === 'digits' ? r.replace(/[^\d]/g, '') : r);
    if (surface.recipient === null || spell(surface.recipient) !== spell(claim.recipient)) return false;
  }
  for (const [key, value] of Object.entries(claim.delivery ?? {})) {
    const own = surface.delivery?.[key];
    if (own !== undefined && own !== value) return false;
  }
  return true;
}

type Picked =
  | { kind: 'answer'; answer: unknown; params?: Record<string, string> }
  | { kind: 'done'; outcome: DispatchOutcome };

async function pickAnswer(pick: Pick, question: StoredInteraction): Promise<Picked> {
  switch (pick.kind) {
    case 'look':
      return { kind: 'done', outcome: { kind: 'ready', question } };
    case 'confirm':
      return { kind: 'answer', answer: pick.value };
    case 'choice':
      // An index past the choices is offered as no answer: the format's check refuses it in its own words.
      return { kind: 'answer', answer: (question.choices ?? [])[pick.index] };
    case 'review':
      return { kind: 'answer', answer: reviewAnswerOf(pick) };
    case 'answer':
      return { kind: 'answer', answer: pick.answer };
    case 'read': {
      const read = await pick.read(question);
      if (read.ok)
        return { kind: 'answer', answer: read.answer, ...(read.params === undefined ? {} : { params: read.params }) };
      const refused: RefusedOutcome = { kind: 'refused', question, refusal: read.refusal, message: read.message };
      if (read.fields !== undefined) refused.fields = read.fields;
      return { kind: 'done', outcome: refused };
    }
  }
}

/**
 * The pick a tapped button's action code stands for: confirm, choice and a review's approve or reject answer from
 * the tap; a review's edit or respond and a page turn only look (the channel then opens its form, prompts for the
 * message, or shows the page).
 */
export function pickOfCode(pick: ActionPick): Pick {
  switch (pick.kind) {
    case 'confirm':
      return { kind: 'confirm', value: pick.value };
    case 'choice':
      return { kind: 'choice', index: pick.index };
    case 'review':
      return pick.decision === 'approve' || pick.decision === 'reject'
        ? { kind: 'review', decision: pick.decision }
        : { kind: 'look' };
    case 'page':
      return { kind: 'look' };
  }
}

/** The answer a review pick offers: the decision with the member it carries (an absent one is left out). */
function reviewAnswerOf(pick: Extract<Pick, { kind: 'review' }>): Record<string, unknown> {
  const answer: Record<string, unknown> = { decision: pick.decision };
  if (pick.args !== undefined) answer['args'] = pick.args;
  if (pick.message !== undefined) answer['message'] = pick.message;
  return answer;
}

function callbackOnly(question: StoredInteraction): AskgateError {
  return new AskgateError(
    'callback_only',
    `interaction ${question.id} is answered only through its signed link; no chat answer is taken.`,
  );
}

function refusedBy(question: StoredInteraction, err: AskgateError): RefusedOutcome {
  const violations = err.extra['errors'] as readonly AnswerViolation[] | undefined;
  return { kind: 'refused', question, refusal: err.refusal, message: err.message, ...(violations && { violations }) };
}

/** A refusal the answer path threw, as an outcome; anything else (the store failing) is thrown on. */
function outcomeOfRefusal(err: unknown, question: StoredInteraction): DispatchOutcome {
  if (!(err instanceof AskgateError)) throw err;
  switch (err.code) {
    case 'invalid_answer':
    case 'not_an_approver':
    case 'callback_only':
      return refusedBy(question, err);
    case 'gone':
      return { kind: 'closed', status: err.extra['status'] === 'cancelled' ? 'cancelled' : 'expired', question };
    case 'not_found':
      return { kind: 'not_found' };
    default:
      throw err;
  }
}
