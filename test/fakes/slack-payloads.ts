import { createHmac } from 'node:crypto';
import { BOT, type FakeSlackMessage, type FakeView } from './slack-server.js';

/**
 * Real-shaped Slack inbound requests for tests, signed exactly as Slack signs them: `v0=` + hex HMAC-SHA256 of
 * `v0:<timestamp>:<raw body>` under the signing secret, in X-Slack-Signature, with X-Slack-Request-Timestamp.
 * Events are JSON; interactivity is form-encoded with the JSON in one `payload` field.
 */

export const PERSON = { id: 'UADA0001', username: 'ada', name: 'ada', team_id: BOT.team_id };
let seq = 0;

export interface SendOptions {
  /** Unix seconds to sign with (default now). */
  timestamp?: number;
  /** Overrides the computed signature (a wrong one). */
  signature?: string;
  retryNum?: number;
}

export interface SlackResponse {
  status: number;
  text: string;
  json: Record<string, unknown> | null;
}

function signature(secret: string, timestamp: number, body: string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
}

async function send(
  url: string,
  secret: string,
  body: string,
  contentType: string,
  options: SendOptions,
): Promise<SlackResponse> {
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
  const headers: Record<string, string> = {
    'content-type': contentType,
    'x-slack-request-timestamp': String(timestamp),
    'x-slack-signature': options.signature ?? signature(secret, timestamp, body),
  };
  if (options.retryNum !== undefined) {
    headers['x-slack-retry-num'] = String(options.retryNum);
    headers['x-slack-retry-reason'] = 'http_timeout';
  }
  const res = await fetch(url, { method: 'POST', headers, body });
  const text = await res.text();
  let json: Record<string, unknown> | null = null;
  try {
    json = text === '' ? null : (JSON.parse(text) as Record<string, unknown>);
  } catch {
    json = null;
  }
  return { status: res.status, text, json };
}

export const postEvent = (
  gatewayUrl: string,
  secret: string,
  body: unknown,
  options: SendOptions = {},
): Promise<SlackResponse> =>
  send(`${gatewayUrl}/channels/slack/events`, secret, JSON.stringify(body), 'application/json', options);

export const postInteraction = (
  gatewayUrl: string,
  secret: string,
  payload: unknown,
  options: SendOptions = {},
): Promise<SlackResponse> =>
  send(
    `${gatewayUrl}/channels/slack/interactions`,
    secret,
    new URLSearchParams({ payload: JSON.stringify(payload) }).toString(),
    'application/x-www-form-urlencoded',
    options,
  );

/** The actions block of a question message and the element whose action_id is `actionId`. */
function findAction(
  message: FakeSlackMessage,
  actionId: string,
): { blockId: string; element: Record<string, unknown> } {
  for (const block of message.blocks) {
    if (block['type'] !== 'actions') continue;
    const element = (block['elements'] as Array<Record<string, unknown>>).find((e) => e['action_id'] === actionId);
    if (element !== undefined) return { blockId: block['block_id'] as string, element };
  }
  throw new Error(`no control ${actionId} on message ${message.ts}`);
}

/** A tap on a question message's control: a button, or an option picked in its static_select (`selected`). */
export function blockActions(
  message: FakeSlackMessage,
  actionId: string,
  opts: { triggerId?: string; selected?: string; user?: typeof PERSON } = {},
): Record<string, unknown> {
  const { blockId, element } = findAction(message, actionId);
  const action: Record<string, unknown> = {
    type: element['type'],
    action_id: actionId,
    block_id: blockId,
    action_ts: `${Date.now() / 1000}`,
  };
  if (element['type'] === 'button') action['value'] = element['value'];
  if (opts.selected !== undefined)
    action['selected_option'] = (element['options'] as Array<Record<string, unknown>>).find(
      (o) => o['value'] === opts.selected,
    );
  return {
    type: 'block_actions',
    user: opts.user ?? PERSON,
    api_app_id: 'AASKGATE',
    token: 'deprecated-verification-token',
    container: { type: 'message', message_ts: message.ts, channel_id: message.channel, is_ephemeral: false },
    trigger_id: opts.triggerId ?? `${++seq}.unused.trigger`,
    team: { id: BOT.team_id, domain: 'askgate-test' },
    channel: { id: message.channel, name: 'questions' },
    message: { type: 'message', ts: message.ts, text: message.text, blocks: message.blocks, bot_id: BOT.bot_id },
    response_url: 'https://hooks.slack.invalid/actions/T/1/x',
    actions: [action],
  };
}

/** Slack's `view.state.values` for a modal: block_id → {value: element state}. */
export type StateValues = Record<string, Record<string, Record<string, unknown>>>;

/** Element states by field name, e.g. `{email: {type: 'email_text_input', value: 'a@b.c'}}`. */
export function state(fields: Record<string, Record<string, unknown>>): StateValues {
  return Object.fromEntries(Object.entries(fields).map(([name, el]) => [`f:${name}`, { value: el }]));
}

function viewPayload(view: FakeView, values: StateValues): Record<string, unknown> {
  return {
    ...view.view,
    id: view.id,
    hash: view.hash,
    team_id: BOT.team_id,
    app_id: 'AASKGATE',
    bot_id: BOT.bot_id,
    state: { values },
  };
}

export function viewSubmission(view: FakeView, values: StateValues, user = PERSON): Record<string, unknown> {
  return {
    type: 'view_submission',
    team: { id: BOT.team_id },
    user,
    api_app_id: 'AASKGATE',
    trigger_id: `${++seq}.submit.trigger`,
    view: viewPayload(view, values),
  };
}

/** A change of a dispatching input inside a modal (the controller of a visibleWhen). */
export function viewBlockAction(
  view: FakeView,
  field: string,
  element: Record<string, unknown>,
  values: StateValues,
  user = PERSON,
): Record<string, unknown> {
  return {
    type: 'block_actions',
    user,
    team: { id: BOT.team_id },
    api_app_id: 'AASKGATE',
    container: { type: 'view', view_id: view.id },
    trigger_id: `${++seq}.field.trigger`,
    view: viewPayload(view, values),
    actions: [{ ...element, action_id: 'value', block_id: `f:${field}`, action_ts: `${Date.now() / 1000}` }],
  };
}

export interface ReplyFile {
  id?: string;
  name: string;
  mimetype: string;
  size?: number;
}

/** An Events API callback: a person's message in the question's thread, optionally with files. */
export function threadReply(
  question: FakeSlackMessage,
  text: string,
  opts: { files?: ReplyFile[]; eventId?: string; user?: string } = {},
): Record<string, unknown> {
  const ts = `${1_800_000_000 + ++seq}.000100`;
  const event: Record<string, unknown> = {
    type: 'message',
    channel: question.channel,
    user: opts.user ?? PERSON.id,
    text,
    ts,
    thread_ts: question.ts,
    team: BOT.team_id,
    channel_type: question.channel.startsWith('D') ? 'im' : 'channel',
    event_ts: ts,
  };
  if (opts.files !== undefined) {
    event['subtype'] = 'file_share';
    event['files'] = opts.files.map((f, i) => ({
      id: f.id ?? `F0${seq}${i}`,
      name: f.name,
      mimetype: f.mimetype,
      filetype: f.name.split('.').pop(),
      size: f.size ?? 48213,
      url_private: `https://files.slack.com/files-pri/${BOT.team_id}-F0${seq}${i}/${f.name}`,
      permalink: `https://askgate-test.slack.com/files/${PERSON.id}/F0${seq}${i}/${f.name}`,
    }));
  }
  return {
    token: 'deprecated-verification-token',
    team_id: BOT.team_id,
    api_app_id: 'AASKGATE',
    event,
    type: 'event_callback',
    event_id: opts.eventId ?? `Ev0${++seq}ASKGATE`,
    event_time: Math.floor(Date.now() / 1000),
    authorizations: [{ team_id: BOT.team_id, user_id: BOT.user_id, is_bot: true }],
  };
}
