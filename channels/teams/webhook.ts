import { MalformedWebhook, textOf } from '../http.js';

/**
 * Pure parsers of verified Bot Framework activities (`POST /channels/teams/messages`): the few kinds askgate acts on.
 * The activity schema: learn.microsoft.com/azure/bot-service/rest-api/bot-framework-rest-connector-api-reference
 * (Activity, ChannelAccount, ConversationAccount); Teams' invoke of an `Action.Execute`: "Universal Actions for
 * Adaptive Cards". No core, no express, no vendor SDK.
 */

export interface TeamsPerson {
  /** The Bot Framework id (`29:…`), unique per bot. */
  id: string;
  /** The person's Microsoft Entra object id: the stable identity approvers name (`teams:<aadObjectId>`). */
  aadObjectId: string | null;
  name: string | null;
}

export interface TeamsConversation {
  /** As the activity names it: a channel thread reads `19:…@thread.tacv2;messageid=<root id>`. */
  id: string;
  /** The conversation without its thread suffix: where askgate posts and what an ask's `recipient` names. */
  base: string;
  /** The root message of the channel thread the activity came from, when `id` names one. */
  threadRoot: string | null;
  type: string | null;
  tenantId: string | null;
}

interface Common {
  id: string;
  serviceUrl: string;
  conversation: TeamsConversation;
  from: TeamsPerson;
  /** The bot, as the activity addresses it (`28:<app id>`). */
  recipientId: string | null;
}

export type TeamsEvent =
  | (Common & { kind: 'message'; text: string; replyToId: string | null })
  | (Common & {
      kind: 'action';
      /** The card message the action was pressed on. */
      replyToId: string | null;
      verb: string;
      /** `Action.Execute`'s data, with the card's input values merged in by Teams. */
      data: Record<string, unknown>;
    })
  /** An install, a member added, or any other activity that tells askgate where a conversation lives. */
  | (Common & { kind: 'conversation'; type: string })
  /** An invoke askgate does not serve (a message extension, a task module). */
  | (Common & { kind: 'other_invoke'; name: string });

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

function need(record: Record<string, unknown>, key: string, where: string): string {
  const value = str(record[key]);
  if (value === null) throw new MalformedWebhook(`${where}${key} is missing`);
  return value;
}

/** `19:x@thread.tacv2;messageid=1700` → base `19:x@thread.tacv2`, thread root `1700`. */
export function splitConversationId(id: string): { base: string; threadRoot: string | null } {
  const m = /^(.*);messageid=([^;]+)$/.exec(id);
  return m === null ? { base: id, threadRoot: null } : { base: m[1] as string, threadRoot: m[2] as string };
}

function common(activity: Record<string, unknown>): Common {
  const conversation = activity['conversation'];
  const from = activity['from'];
  if (!isRecord(conversation)) throw new MalformedWebhook('conversation is missing');
  if (!isRecord(from)) throw new MalformedWebhook('from is missing');
  const conversationId = need(conversation, 'id', 'conversation.');
  const channelData = isRecord(activity['channelData']) ? activity['channelData'] : {};
  const tenant = isRecord(channelData['tenant']) ? channelData['tenant'] : {};
  const recipient = isRecord(activity['recipient']) ? activity['recipient'] : {};
  return {
    id: need(activity, 'id', ''),
    serviceUrl: need(activity, 'serviceUrl', ''),
    conversation: {
      id: conversationId,
      ...splitConversationId(conversationId),
      type: str(conversation['conversationType']),
      tenantId: str(conversation['tenantId']) ?? str(tenant['id']),
    },
    from: { id: need(from, 'id', 'from.'), aadObjectId: str(from['aadObjectId']), name: str(from['name']) },
    recipientId: str(recipient['id']),
  };
}

/** One verified activity → the event askgate acts on. Throws MalformedWebhook for a body that is not an activity. */
export function parseActivity(rawBody: Buffer | string): TeamsEvent {
  let activity: unknown;
  try {
    activity = JSON.parse(textOf(rawBody));
  } catch {
    throw new MalformedWebhook('the body is not JSON');
  }
  if (!isRecord(activity)) throw new MalformedWebhook('the body is not an activity object');
  const type = need(activity, 'type', '');
  const base = common(activity);
  if (type === 'message')
    return {
      ...base,
      kind: 'message',
      text: typeof activity['text'] === 'string' ? activity['text'] : '',
      replyToId: str(activity['replyToId']),
    };
  if (type === 'invoke') {
    const name = str(activity['name']) ?? '';
    if (name !== 'adaptiveCard/action') return { ...base, kind: 'other_invoke', name };
    const value = activity['value'];
    const action = isRecord(value) ? value['action'] : null;
    if (!isRecord(action)) throw new MalformedWebhook('value.action is missing');
    if (action['type'] !== 'Action.Execute') throw new MalformedWebhook('value.action.type is not Action.Execute');
    return {
      ...base,
      kind: 'action',
      replyToId: str(activity['replyToId']),
      verb: str(action['verb']) ?? '',
      data: isRecord(action['data']) ? action['data'] : {},
    };
  }
  return { ...base, kind: 'conversation', type };
}

/**
 * The words of a message addressed to the bot: Teams puts `<at>bot</at>` in front of a channel message that mentions
 * it, and may wrap the text in HTML (`<p>…</p>`); both are taken off, entities decoded.
 */
export function plainText(text: string): string {
  return text
    .replace(/<at>[^<]*<\/at>/g, '')
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<[^>]+>/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .trim();
}
