import type { InteractionEventType } from '../../core/types.js';

/** One message of a store's events channel, as the scripts publish it (scripts/includes/eventMessage.lua). */
export interface EventMessage {
  type: InteractionEventType;
  id: string;
  /** The record's envelope after the transition. */
  envelope: string;
  /** Its form schema's JSON text, or null when it has none. */
  schema: string | null;
}

/**
 * Reads an events-channel message: `type \n id \n schema \n envelope` (schema '' for none; the envelope, last, is the
 * only field with newlines). Throws on anything else.
 */
export function parseEventMessage(message: string): EventMessage {
  const afterType = message.indexOf('\n');
  const afterId = afterType < 0 ? -1 : message.indexOf('\n', afterType + 1);
  const afterSchema = afterId < 0 ? -1 : message.indexOf('\n', afterId + 1);
  if (afterSchema < 0) throw new Error('an events message needs four newline-separated fields');
  return {
    type: message.slice(0, afterType) as InteractionEventType,
    id: message.slice(afterType + 1, afterId),
    schema: afterSchema === afterId + 1 ? null : message.slice(afterId + 1, afterSchema),
    envelope: message.slice(afterSchema + 1),
  };
}
