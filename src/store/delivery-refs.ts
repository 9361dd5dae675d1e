/**
 * A delivery's `ref` (the message reference a reply or receipt is matched by, channels/contract.ts DELIVERY_REF) is,
 * on every channel askgate ships, a function of the other references: Telegram `chat_id:message_id`, Discord
 * `channel_id:message_id`, Slack `channel:ts`, WhatsApp and Twilio `message_id`. The stores' Redis form leaves it
 * out when that rule rebuilds it exactly, and the read puts it back; a `ref` the rule does not rebuild (the web
 * chat's, a plugin of another shape) is kept as written; a map that holds its `ref` reads as it is.
 * The Lua twin of `derivedRef` is refOf (redis/scripts/includes/refOf.lua); they must agree.
 */

/** The ref a delivery map implies, or undefined when it implies none. */
export function derivedRef(d: Readonly<Record<string, string>>): string | undefined {
  const messageId = d['message_id'];
  if (d['chat_id'] !== undefined && messageId !== undefined) return `${d['chat_id']}:${messageId}`;
  if (d['channel_id'] !== undefined && messageId !== undefined) return `${d['channel_id']}:${messageId}`;
  if (d['channel'] !== undefined && d['ts'] !== undefined) return `${d['channel']}:${d['ts']}`;
  return messageId;
}

/** The delivery as stored: without `ref` when `derivedRef` rebuilds it. */
export function compactDelivery(d: Readonly<Record<string, string>>): Record<string, string> {
  const { ref, ...rest } = d;
  return ref !== undefined && derivedRef(rest) === ref ? rest : { ...d };
}

/** The delivery as read: `ref` back in place when it was left out (its position does not matter to a map). */
export function expandDelivery(d: Record<string, string>): Record<string, string> {
  if (d['ref'] !== undefined) return d;
  const ref = derivedRef(d);
  return ref === undefined ? d : { ...d, ref };
}

/**
 * The first surface's conversation reference. On Telegram, Discord and Slack a delivery names the conversation its
 * message lives in (`chat_id`, `channel_id`, `channel`), which for a direct question is the record's recipient
 * (`rc`). The first surface's stored delivery (envelope part 8) leaves that reference out when it equals the
 * recipient and the message's own reference (`message_id`, `ts`) is present; the read puts it back when it is
 * absent and the message reference is present. What these channels write always holds both, so a map with the
 * message reference and without the conversation can only be this form. A further surface's delivery keeps its full
 * map. The Lua twins are firstDelivery and firstStored (redis/scripts/includes/); they must agree.
 */
export const CONVERSATION_REFS: Readonly<Record<string, readonly [conversation: string, message: string]>> = {
  telegram: ['chat_id', 'message_id'],
  discord: ['channel_id', 'message_id'],
  slack: ['channel', 'ts'],
};

function conversationRule(channel: string | null): readonly [string, string] | undefined {
  return channel === null || !Object.hasOwn(CONVERSATION_REFS, channel) ? undefined : CONVERSATION_REFS[channel];
}

/** The first surface's delivery as stored: `compactDelivery`, then without the conversation equal to `recipient`. */
export function compactFirstDelivery(
  d: Readonly<Record<string, string>>,
  channel: string | null,
  recipient: string | null,
): Record<string, string> {
  const stored = compactDelivery(d);
  const rule = conversationRule(channel);
  if (rule === undefined || recipient === null) return stored;
  const [conversation, message] = rule;
  if (stored[conversation] !== recipient || stored[message] === undefined) return stored;
  const { [conversation]: _implied, ...rest } = stored;
  return rest;
}

/** The first surface's delivery as read: the conversation back in place when it was left out, then `ref`. */
export function expandFirstDelivery(
  d: Record<string, string>,
  channel: string | null,
  recipient: string | null,
): Record<string, string> {
  const rule = conversationRule(channel);
  if (rule === undefined || recipient === null) return expandDelivery(d);
  const [conversation, message] = rule;
  if (d[conversation] !== undefined || d[message] === undefined) return expandDelivery(d);
  return expandDelivery({ [conversation]: recipient, ...d });
}
