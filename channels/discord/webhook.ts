import { INTERACTION } from './limits.js';
import { MalformedWebhook } from '../http.js';

/**
 * The pure parse of what Discord posts to the Interactions Endpoint URL: a PING (the URL check), a click on a
 * message component (a button or a string select), or a submitted modal. Anything else (slash commands, which
 * askgate registers none of) is `ignored`. Imports no core and no framework, so it can be read and tested alone.
 *
 * Discord delivers ordinary channel messages to bots over the Gateway websocket only, never to this URL, so askgate
 * reads no typed replies on Discord: every answer arrives as a signed interaction (a text answer through a modal).
 */

/** Who acted: `member.user` in a server, `user` in a DM. */
export interface DiscordUser {
  id: string;
  username: string | null;
  globalName: string | null;
}

/** The message a component sits on (the question), as the interaction carries it. */
export interface DiscordMessageRef {
  id: string;
  channelId: string;
  content: string;
}

interface Acted {
  /** Discord's id of this interaction, with its token: together they name the callback. */
  id: string;
  token: string;
  /** The application the interaction is for. */
  applicationId: string | null;
  customId: string;
  user: DiscordUser | null;
  channelId: string | null;
  guildId: string | null;
  message: DiscordMessageRef | null;
}

export type DiscordEvent =
  | { kind: 'ping' }
  | ({ kind: 'component'; values: string[] } & Acted)
  | ({ kind: 'modal'; fields: Map<string, string> } & Acted)
  | { kind: 'ignored'; type: number };

/** A verified body that is not a Discord interaction: the pipeline answers 400 naming what is missing. */
export class MalformedInteraction extends MalformedWebhook {
  constructor(message: string) {
    super(message);
    this.name = 'MalformedInteraction';
  }
}

type Json = Record<string, unknown>;
const isJson = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

function need(body: Json, field: string): string {
  const v = str(body[field]);
  if (v === null || v === '') throw new MalformedInteraction(`"${field}" is missing`);
  return v;
}

function userOf(body: Json): DiscordUser | null {
  const member = body['member'];
  const raw = isJson(member) && isJson(member['user']) ? member['user'] : body['user'];
  if (!isJson(raw)) return null;
  const id = str(raw['id']);
  if (id === null) return null;
  return { id, username: str(raw['username']), globalName: str(raw['global_name']) };
}

function messageOf(body: Json): DiscordMessageRef | null {
  const m = body['message'];
  if (!isJson(m)) return null;
  const id = str(m['id']);
  const channelId = str(m['channel_id']) ?? str(body['channel_id']);
  if (id === null || channelId === null) return null;
  return { id, channelId, content: str(m['content']) ?? '' };
}

/** The `custom_id` → `value` of every text input in a submitted modal (in action rows, or in newer label wrappers). */
function modalValues(components: unknown, into: Map<string, string>): Map<string, string> {
  if (!Array.isArray(components)) return into;
  for (const c of components) {
    if (!isJson(c)) continue;
    const id = str(c['custom_id']);
    const value = str(c['value']);
    if (id !== null && value !== null) into.set(id, value);
    modalValues(c['components'], into);
    if (isJson(c['component'])) modalValues([c['component']], into);
  }
  return into;
}

/**
 * The key a repeat of this interaction carries (the pipeline's dedupe): Discord's interaction id, unique per click or
 * submission. A PING and an ignored command change nothing, so they are answered every time.
 */
export function dedupeKeyOf(event: DiscordEvent): string | null {
  return event.kind === 'component' || event.kind === 'modal' ? `discord:interaction:${event.id}` : null;
}

export function parseInteraction(rawBody: Buffer): DiscordEvent {
  let body: unknown;
  try {
    body = JSON.parse(rawBody.toString('utf8'));
  } catch {
    throw new MalformedInteraction('the body is not JSON');
  }
  if (!isJson(body)) throw new MalformedInteraction('the body is not a JSON object');
  const type = body['type'];
  if (typeof type !== 'number') throw new MalformedInteraction('"type" is missing');
  if (type === INTERACTION.PING) return { kind: 'ping' };
  if (type !== INTERACTION.MESSAGE_COMPONENT && type !== INTERACTION.MODAL_SUBMIT) return { kind: 'ignored', type };
  const data = body['data'];
  if (!isJson(data)) throw new MalformedInteraction('"data" is missing');
  const acted: Acted = {
    id: need(body, 'id'),
    token: need(body, 'token'),
    applicationId: str(body['application_id']),
    customId: need(data, 'custom_id'),
    user: userOf(body),
    channelId: str(body['channel_id']) ?? (isJson(body['channel']) ? str(body['channel']['id']) : null),
    guildId: str(body['guild_id']),
    message: messageOf(body),
  };
  if (type === INTERACTION.MESSAGE_COMPONENT) {
    const values = Array.isArray(data['values']) ? data['values'].filter((v) => typeof v === 'string') : [];
    return { kind: 'component', values, ...acted };
  }
  return { kind: 'modal', fields: modalValues(data['components'], new Map()), ...acted };
}

/**
 * The `custom_id`s askgate puts on components and modals: `ag:<action>:<interaction id>[:<n>]`. The prefix keeps
 * askgate's apart from any other feature of the same application; an interaction id is base64url (no `:`).
 */
export type ControlId =
  | {
      action:
        | 'yes'
        | 'no'
        | 'answer'
        | 'form'
        | 'text_modal'
        | 'form_modal'
        // A review's buttons: approve and reject answer at once; edit and respond open a modal, submitted as
        // edit_modal (the proposed arguments, edited) and respond_modal (words back to the agent).
        | 'approve'
        | 'reject'
        | 'edit'
        | 'edit_modal'
        | 'respond'
        | 'respond_modal';
      interactionId: string;
    }
  | { action: 'choice' | 'menu'; interactionId: string; n: number };

const CODES = {
  yes: 'y',
  no: 'n',
  answer: 'a',
  form: 'f',
  text_modal: 't',
  form_modal: 'm',
  choice: 'c',
  menu: 's',
  approve: 'p',
  reject: 'r',
  edit: 'e',
  edit_modal: 'd',
  respond: 'o',
  respond_modal: 'w',
} as const;
const ACTIONS = new Map(Object.entries(CODES).map(([action, code]) => [code as string, action]));

export function encodeControlId(control: ControlId): string {
  const base = `ag:${CODES[control.action]}:${control.interactionId}`;
  return 'n' in control ? `${base}:${control.n}` : base;
}

export function decodeControlId(customId: string): ControlId | null {
  // An interaction id is base64url, with `.<k>` when it lives in shard k ≥ 1 (src/core/shard-ids.ts).
  const m = /^ag:([a-z]):([A-Za-z0-9_-]{1,64}(?:\.\d{1,3})?)(?::(\d{1,3}))?$/.exec(customId);
  const action = m === null ? undefined : ACTIONS.get(m[1] ?? '');
  if (m === null || action === undefined || m[2] === undefined) return null;
  const interactionId = m[2];
  if (action === 'choice' || action === 'menu')
    return m[3] === undefined ? null : { action, interactionId, n: Number(m[3]) };
  if (m[3] !== undefined) return null;
  return { action: action as Exclude<ControlId['action'], 'choice' | 'menu'>, interactionId };
}
