import { formInputs } from './form.js';
import { CHOICE_BUTTONS_MAX, CHOICE_TITLE_MAX, checkMessageSize } from './limits.js';
import { clip, outcomeLine, voteCountLine } from '../outcome.js';
import { encodeActionCode } from '../../src/core/action-code.js';
import { actionView, editPrefill, REVIEW_HINT, reviewButtons } from '../../src/core/review-view.js';
import type { Schema } from '../../forms/fields.js';
import type { StoredInteraction } from '../../src/core/types.js';

/**
 * Questions as Bot Framework activities, as data (no calls). Confirm and select are Adaptive Cards whose buttons are
 * `Action.Execute` (Universal Actions: Teams sends an `adaptiveCard/action` invoke and shows the card askgate answers
 * with); a form is a card of inputs sent by one `Action.Execute`; a text question is a plain message answered by a
 * reply to it. Card schema: adaptivecards.io/explorer (AdaptiveCard 1.4, the version Teams renders Action.Execute in).
 */

type Json = Record<string, unknown>;
type Question = Pick<
  StoredInteraction,
  'id' | 'question' | 'answer_format' | 'choices' | 'schema' | 'status' | 'result' | 'quorum' | 'votes'
> &
  Partial<Pick<StoredInteraction, 'action' | 'decisions'>>;

export const CARD_CONTENT_TYPE = 'application/vnd.microsoft.card.adaptive';
/** The verbs askgate's buttons carry; an invoke with another verb is another app feature's. */
export const VERB = {
  answer: 'askgate.answer',
  select: 'askgate.select',
  form: 'askgate.form',
  /** A review's edit form submitted (its args), and its respond card sent (the words). */
  edit: 'askgate.edit',
  respond: 'askgate.respond',
} as const;
/** The data key holding the action code (`<id>:y|n|s<i>`) or, for a choice set and a form, the question id. */
export const DATA_KEY = 'askgate';
/** The input of a long select's choice set. */
export const CHOICE_INPUT = 'askgate_choice';
/** The input of a review's respond card. */
export const MESSAGE_INPUT = 'askgate_message';
/** The most characters the action's text takes on a review card (its args as a FactSet). */
const REVIEW_BUDGET = 6000;

const text = (words: string, extra: Json = {}): Json => ({ type: 'TextBlock', text: words, wrap: true, ...extra });

/** A card as the attachment of a message activity. */
export function cardMessage(card: Json): Json {
  return { type: 'message', attachments: [{ contentType: CARD_CONTENT_TYPE, content: card }] };
}

function card(body: Json[], actions: Json[] = []): Json {
  return {
    type: 'AdaptiveCard',
    $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
    version: '1.4',
    body,
    ...(actions.length > 0 ? { actions } : {}),
  };
}

const execute = (title: string, verb: string, data: Json, style?: 'positive' | 'destructive'): Json => ({
  type: 'Action.Execute',
  title,
  verb,
  data,
  ...(style === undefined ? {} : { style }),
});

/** The question's words: TextBlock takes a subset of Markdown; askgate's question is plain text, so it is kept so. */
const questionBlock = (q: Question): Json => text(q.question, { size: 'Medium', weight: 'Bolder' });

function controls(q: Question): { body: Json[]; actions: Json[] } {
  switch (q.answer_format) {
    case 'confirm':
      return {
        body: [],
        actions: [
          execute(
            'Yes',
            VERB.answer,
            { [DATA_KEY]: encodeActionCode(q.id, { kind: 'confirm', value: true }) },
            'positive',
          ),
          execute(
            'No',
            VERB.answer,
            { [DATA_KEY]: encodeActionCode(q.id, { kind: 'confirm', value: false }) },
            'destructive',
          ),
        ],
      };
    case 'select': {
      const choices = q.choices ?? [];
      if (choices.length <= CHOICE_BUTTONS_MAX)
        return {
          body: [],
          actions: choices.map((c, index) =>
            execute(clip(c, CHOICE_TITLE_MAX), VERB.answer, {
              [DATA_KEY]: encodeActionCode(q.id, { kind: 'choice', index }),
            }),
          ),
        };
      return {
        body: [
          {
            type: 'Input.ChoiceSet',
            id: CHOICE_INPUT,
            style: 'compact',
            isRequired: true,
            errorMessage: 'Choose one.',
            placeholder: 'Choose one',
            choices: choices.map((c, i) => ({ title: clip(c, CHOICE_TITLE_MAX), value: String(i) })),
          },
        ],
        actions: [execute('Answer', VERB.select, { [DATA_KEY]: q.id })],
      };
    }
    case 'review':
      return {
        body: reviewBody(q),
        actions: reviewButtons(q.id, q.decisions ?? []).map((b) =>
          execute(
            b.label,
            VERB.answer,
            { [DATA_KEY]: b.code },
            b.decision === 'approve' ? 'positive' : b.decision === 'reject' ? 'destructive' : undefined,
          ),
        ),
      };
    case 'form':
      return {
        body: formInputs((q.schema ?? {}) as Schema),
        actions: [execute('Submit', VERB.form, { [DATA_KEY]: q.id }, 'positive')],
      };
    default:
      return { body: [], actions: [] };
  }
}

/** The proposed action, readably: its name, its description, and its args as facts (`key`: value). */
function reviewBody(q: Question): Json[] {
  if (q.action === undefined) return [];
  const view = actionView(q.action, { budget: REVIEW_BUDGET, maxValue: 500 });
  return [
    text(view.name, { weight: 'Bolder', fontType: 'Monospace' }),
    ...(view.description === null ? [] : [text(view.description, { isSubtle: true })]),
    ...(view.args.length === 0
      ? []
      : [{ type: 'FactSet', facts: view.args.map((a) => ({ title: a.key, value: a.value })) }]),
    ...(view.more === null ? [] : [text(view.more, { isSubtle: true })]),
    text(REVIEW_HINT, { size: 'Small', isSubtle: true }),
  ];
}

/** A review's edit form: the args' schema as inputs, pre-filled with the proposed args (or what was typed). */
export function renderReviewEdit(
  q: Question,
  values: Json | null,
  errors: Readonly<Record<string, string>>,
  note: string | null,
): Json {
  const prefill = values ?? editPrefill((q.schema ?? null) as Json | null, q.action?.args ?? {});
  return card(
    [
      questionBlock(q),
      text(`Edit ${q.action?.name ?? 'the action'}`, { weight: 'Bolder' }),
      ...(note === null ? [] : [text(note, { color: 'Attention' })]),
      ...formInputs((q.schema ?? {}) as Schema, prefill, errors),
    ],
    [execute('Approve with these', VERB.edit, { [DATA_KEY]: q.id }, 'positive')],
  );
}

/** A review's respond card: one multi-line input for the words back to the agent. */
export function renderReviewRespond(q: Question): Json {
  return card(
    [
      questionBlock(q),
      {
        type: 'Input.Text',
        id: MESSAGE_INPUT,
        label: 'Your answer to the agent',
        isMultiline: true,
        isRequired: true,
        errorMessage: 'Write what the agent should know.',
      },
    ],
    [execute('Send', VERB.respond, { [DATA_KEY]: q.id })],
  );
}

/** The hint under a text question, and the card of every other format. */
export const REPLY_HINT = 'Reply to this message to answer.';

/** The activity that asks the question. Throws RenderLimitError for one Teams would refuse. */
export function renderQuestion(q: Question): Json {
  if (q.answer_format === 'text' || q.answer_format === 'external') {
    const message = { type: 'message', textFormat: 'plain', text: `${q.question}\n\n${REPLY_HINT}` };
    checkMessageSize(message);
    return message;
  }
  const { body, actions } = controls(q);
  const message = cardMessage(card([questionBlock(q), ...body], actions));
  checkMessageSize(message);
  return message;
}

/** A form card again, with what the person typed and each refused field's sentence under it. */
export function renderFormAgain(
  q: Question,
  values: Json,
  errors: Readonly<Record<string, string>>,
  note: string | null,
): Json {
  return card(
    [
      questionBlock(q),
      ...(note === null ? [] : [text(note, { color: 'Attention' })]),
      ...formInputs((q.schema ?? {}) as Schema, values, errors),
    ],
    [execute('Submit', VERB.form, { [DATA_KEY]: q.id }, 'positive')],
  );
}

/** The card (or text) a delivered question becomes once it has ended: the question and the outcome line, no controls. */
export function outcomeCard(q: Question): Json {
  const line = outcomeLine(q) ?? '';
  return card([questionBlock(q), text(line, { weight: 'Bolder' })]);
}

/** The activity that replaces the delivered question (PUT …/activities/{id}): the same kind of message it was. */
export function renderOutcome(q: Question): Json {
  if (q.answer_format === 'text' || q.answer_format === 'external')
    return { type: 'message', textFormat: 'plain', text: `${q.question}\n\n${outcomeLine(q) ?? ''}` };
  return cardMessage(outcomeCard(q));
}

/** A pending quorum question with its live count, its buttons kept. */
export function renderVotes(q: Question): Json {
  const { body, actions } = controls(q);
  return cardMessage(card([questionBlock(q), text(voteCountLine(q) ?? ''), ...body], actions));
}

/** The invoke response showing `card` in place of the pressed one. */
export const cardResponse = (value: Json): Json => ({ statusCode: 200, type: CARD_CONTENT_TYPE, value });
/** The invoke response that leaves the card and tells the person (a toast in Teams). */
export const messageResponse = (words: string): Json => ({
  statusCode: 200,
  type: 'application/vnd.microsoft.activity.message',
  value: words,
});
