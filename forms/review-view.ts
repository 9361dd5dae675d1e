/**
 * How every surface shows a review, in one place: the action as readable lines within a platform's character
 * budget, the edit form's starting values and the outcome line naming who decided what. Channels (through
 * src/core/review-view.ts, which adds the buttons' action codes) and the browser pages (the inbox, the callback
 * page, the web chat) use the same words; nothing here knows a platform. Pure: no Node, no DOM.
 */

/** What a person may do with a reviewed action (the core's `ReviewDecision`). */
export type ReviewDecision = 'approve' | 'edit' | 'reject' | 'respond';

/** The action an agent proposes (the core's `ReviewAction`). */
export interface ReviewAction {
  name: string;
  args: Record<string, unknown>;
  description?: string;
}

/** A review's answer (the core's `ReviewAnswer`). */
export type ReviewAnswer =
  | { decision: 'approve' }
  | { decision: 'edit'; args: Record<string, unknown> }
  | { decision: 'reject'; message?: string }
  | { decision: 'respond'; message: string };

/** The label of each decision's button or control. */
export const DECISION_LABELS: Readonly<Record<ReviewDecision, string>> = {
  approve: 'Approve',
  edit: 'Edit',
  reject: 'Reject',
  respond: 'Respond',
};

/**
 * Reject with a note, on the web pages (the inbox, the web chat, the callback page): the one-press Reject sends no
 * words; this path, offered under the buttons, sends the person's note with the rejection.
 */
export const REJECT_NOTE = {
  /** What opens it. */
  open: 'Reject with a note…',
  /** The line above its text box. */
  hint: 'Your note goes back to the agent with the rejection.',
  /** The text box's label. */
  label: 'Why you reject it',
  /** When its Reject is pressed with nothing written. */
  empty: 'Write a note first, or press Reject above to reject without one.',
} as const;

/** The line under a review on a chat surface. */
export const REVIEW_HINT = 'Review the proposed action: approve or reject it with one tap.';

/** One argument as a line: its key (dotted for a nested object's member) and its value in words. */
export interface ArgLine {
  key: string;
  value: string;
}

/** The action as a surface shows it, cut to fit. */
export interface ActionView {
  name: string;
  /** The description, cut to what the budget left it; null when there is none. */
  description: string | null;
  /** The arguments as `key: value` lines, in the args' order, each value cut to `maxValue`. */
  args: ArgLine[];
  /** How many argument lines did not fit the budget. */
  omitted: number;
  /** The "… and N more" line for them, when it fits the budget; null otherwise. */
  more: string | null;
}

export interface ActionViewOptions {
  /** The most characters the whole text may take (name, description, argument lines and line breaks). */
  budget: number;
  /** The most characters of one argument's value before it is cut with "…". Default 200. */
  maxValue?: number;
}

/** Nested objects are folded into dotted keys down to this depth; deeper values are shown as compact JSON. */
const FOLD_DEPTH = 2;
const DEFAULT_MAX_VALUE = 200;
/** The shortest cut description worth showing. */
const MIN_DESCRIPTION = 12;

/** Cuts `text` to `max` characters with an ellipsis, by code points so no surrogate pair is split. */
export function cut(text: string, max: number): string {
  const points = [...text];
  if (points.length <= max) return text;
  return max <= 0 ? '' : `${points.slice(0, max - 1).join('')}…`;
}

function length(text: string): number {
  return [...text].length;
}

/** A value in words: a string as itself (line breaks shown as ⏎), a list of scalars comma-joined, else JSON. */
function words(value: unknown): string {
  if (typeof value === 'string') return value.replace(/\r?\n/g, ' ⏎ ');
  if (Array.isArray(value) && value.every((v) => v === null || typeof v !== 'object'))
    return value.length === 0 ? '[]' : value.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ');
  return JSON.stringify(value) ?? String(value);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The args as `key: value` lines, nested objects folded into dotted keys (`to.email`), every value cut. */
export function argLines(args: Record<string, unknown>, maxValue = DEFAULT_MAX_VALUE): ArgLine[] {
  const lines: ArgLine[] = [];
  const walk = (value: Record<string, unknown>, prefix: string, depth: number): void => {
    for (const [key, member] of Object.entries(value)) {
      const path = prefix === '' ? key : `${prefix}.${key}`;
      if (isObject(member) && Object.keys(member).length > 0 && depth < FOLD_DEPTH) walk(member, path, depth + 1);
      else lines.push({ key: path, value: cut(words(member), maxValue) });
    }
  };
  walk(args, '', 0);
  return lines;
}

/** One argument line as text. */
export function argLineText(line: ArgLine): string {
  return `${line.key}: ${line.value}`;
}

/**
 * The action fitted to `budget` characters when joined as lines (`actionText`): the name always (cut only when it
 * alone is over the budget), then as many argument lines as fit with an "… and N more" line for the rest, and the
 * description in what is left, at most half of it while arguments wait (arguments are what the person decides on).
 */
export function actionView(action: ReviewAction, options: ActionViewOptions): ActionView {
  const maxValue = options.maxValue ?? DEFAULT_MAX_VALUE;
  const name = cut(action.name, options.budget);
  let left = options.budget - length(name);
  const all = argLines(action.args, maxValue);
  const rawDescription = action.description?.trim() ?? '';
  // Room the description may take: half the rest while there are arguments to show, else all of it.
  let description: string | null = null;
  const room = (all.length > 0 ? Math.floor(left / 2) : left) - 1;
  // A description cut below a few words says nothing; it is left out rather than shown as a stub.
  if (rawDescription !== '' && room >= MIN_DESCRIPTION) {
    description = cut(rawDescription.replace(/\s*\n\s*/g, ' '), room);
    left -= length(description) + 1;
  }
  const args: ArgLine[] = [];
  for (const [i, line] of all.entries()) {
    const need = length(argLineText(line)) + 1;
    const restAfter = all.length - i - 1;
    // Keep room for the "… and N more" line whenever more lines follow this one.
    const reserve = restAfter > 0 ? length(moreLine(restAfter)) + 1 : 0;
    if (need + reserve > left) break;
    args.push(line);
    left -= need;
  }
  const omitted = all.length - args.length;
  const more = omitted > 0 && length(moreLine(omitted)) + 1 <= left ? moreLine(omitted) : null;
  return { name, description, args, omitted, more };
}

function moreLine(omitted: number): string {
  return `… and ${omitted} more`;
}

/**
 * The action as plain text within `budget` characters: the name, the description, one `key: value` line per
 * argument, "… and N more" when some did not fit. A platform wraps it in its own markup (bold name, code values).
 */
export function actionText(action: ReviewAction, options: ActionViewOptions): string {
  const view = actionView(action, options);
  const lines = [view.name];
  if (view.description !== null) lines.push(view.description);
  for (const line of view.args) lines.push(argLineText(line));
  if (view.more !== null) lines.push(view.more);
  return lines.join('\n');
}

/** A stored review answer, or null when the value is not one (an expiry marker, a record of another format). */
export function reviewAnswerOf(value: unknown): ReviewAnswer | null {
  if (!isObject(value)) return null;
  const decision = value['decision'];
  if (decision === 'approve') return { decision };
  if (decision === 'edit' && isObject(value['args'])) return { decision, args: value['args'] };
  if (decision === 'reject')
    return typeof value['message'] === 'string' ? { decision, message: value['message'] } : { decision };
  if (decision === 'respond' && typeof value['message'] === 'string') return { decision, message: value['message'] };
  return null;
}

const OUTCOME: Readonly<Record<ReviewDecision, { mark: string; verb: string }>> = {
  approve: { mark: '✅', verb: 'Approved' },
  edit: { mark: '✏️', verb: 'Edited' },
  reject: { mark: '❌', verb: 'Rejected' },
  respond: { mark: '💬', verb: 'Responded' },
};

export interface ReviewOutcomeOptions {
  /** Who decided, as the surface names them (a mention, a plain id). */
  who: string;
  /** Where, as words after the name ("on Slack", "in the inbox"); empty to leave out. */
  where?: string;
  /** Escapes plain words for the platform (the message); default: as they are. */
  text?: (words: string) => string;
  /** The most characters of the person's message shown. Default 200. */
  maxMessage?: number;
  /** Leave out the leading mark (✅ ✏️ ❌ 💬), for a surface that shows its own. */
  plain?: boolean;
}

/**
 * The outcome line of a decided review: "✅ Approved by ada on Slack", "✏️ Edited by ada on Slack",
 * "❌ Rejected by ada on Slack: “not on a Friday”", "💬 Responded by ada on Slack: “use the staging bucket”".
 * Null when `answer` is not a review answer.
 */
export function reviewOutcomeLine(answer: unknown, options: ReviewOutcomeOptions): string | null {
  const decided = reviewAnswerOf(answer);
  if (decided === null) return null;
  const text = options.text ?? ((w: string) => w);
  const { mark, verb } = OUTCOME[decided.decision];
  const where = options.where === undefined || options.where === '' ? '' : ` ${options.where}`;
  const head = `${options.plain === true ? '' : `${mark} `}${verb} by ${options.who}${where}`;
  const message = 'message' in decided ? decided.message : undefined;
  if (message === undefined) return head;
  return `${head}: ${text(`“${cut(message, options.maxMessage ?? DEFAULT_MAX_VALUE)}”`)}`;
}

/** The decision's past tense alone ("approved", "edited"), for a summary where the name is said elsewhere. */
export function decisionWords(answer: unknown): string | null {
  const decided = reviewAnswerOf(answer);
  return decided === null ? null : OUTCOME[decided.decision].verb.toLowerCase();
}

/**
 * The values an edit form starts from: the proposed args, kept to the fields the schema names (nested objects kept
 * to their own properties), so a form never carries a value no field of it shows. Without a schema, the args as
 * they are (the form is then one JSON field of them).
 */
export function editPrefill(
  schema: Record<string, unknown> | null,
  args: Record<string, unknown>,
): Record<string, unknown> {
  if (schema === null) return { ...args };
  const properties = schema['properties'];
  if (!isObject(properties)) return {};
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(properties)) {
    if (!(key in args)) continue;
    const value = args[key];
    out[key] =
      isObject(member) && isObject(member['properties']) && isObject(value) ? editPrefill(member, value) : value;
  }
  return out;
}
