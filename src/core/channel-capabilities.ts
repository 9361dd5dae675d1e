import type { JsonSchema } from './types.js';

/**
 * What a channel tells the ask core about itself: the formats and forms it can carry and the recipients it can reach.
 * The synchronous rules are applied by channel-fit.ts while the ask is checked; the one asynchronous rule
 * (`recipientUnreachable`, which reads channel state) by recipient-reach.ts before anything is stored.
 */
export interface ChannelCapabilities {
  supportsFormDelivery: boolean;
  /**
   * True when the channel shows a review (the action readably, approve and reject as taps, edit through its form);
   * a review asked on a channel that does not is refused with a 400 naming the channel.
   */
  supportsReview?: boolean;
  /**
   * A channel whose forms have limits of their own beyond the channel-deliverable subset (a Discord modal holds five
   * text inputs) says why a schema cannot be delivered there: the property and the reason; null when it can. Asked
   * after the subset check, so the ask is refused with a 400 naming the property before anything is stored.
   */
  formRefusal?(schema: JsonSchema): { property: string; reason: string } | null;
  /**
   * A channel whose recipients have a form of their own (an email address) says why `recipient` is not one; null
   * when it is. Asked while the ask is checked, so a malformed recipient is a 400 naming the field, nothing stored.
   */
  recipientRefusal?(recipient: string | null): string | null;
  /**
   * A channel that can write only to recipients it has heard from (Teams keeps each conversation's service address
   * from the activities it received there) says, looking at its channel state, why `recipient` cannot be reached;
   * null when it can. Asked after the ask's rules and before anything is stored, so the ask is a 400 naming the
   * recipient's field.
   */
  recipientUnreachable?(recipient: string): Promise<string | null>;
}
