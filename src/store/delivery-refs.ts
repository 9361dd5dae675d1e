/**
 * A delivery's `ref` (the message reference a reply or receipt is matched by, channels/contract.ts DELIVERY_REF) is,
 * on every channel askgate ships, a function of the other references: Telegram `chat_id:message_id`, Discord
 * `channel_id:message_id`, Slack `channel:ts`, WhatsApp and Twilio `message_id`. The stores' Redis form leaves it
 * out when that rule rebuilds it exactly, and the read puts it back; a `ref` the rule does not rebuild (the web
 * chat's, a plugin of another shape) is kept as written, and so is every record written with its `ref` before.
 * The Lua twin of `derivedRef` is REF_OF (redis/scripts/fragments.ts); they must agree.
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
