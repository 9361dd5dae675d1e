import type { AskRequest } from './ask-request.js';
import { invalid } from './errors.js';
import type { ChannelDirectory } from './ports.js';

/**
 * The one asynchronous channel rule of an ask: a channel that can write only to recipients it has heard from (Teams
 * keeps each conversation's service address from the activities it received there) says, reading its channel state,
 * why a recipient cannot be reached (`ChannelCapabilities.recipientUnreachable`). Beside channel-fit.ts, which holds
 * the synchronous rules; apart from it because it awaits, so it runs after the ask's rules and before anything is
 * stored.
 */

/** Refuses the first surface whose channel cannot reach its recipient: a 400 naming the recipient's field. */
export async function checkRecipientsReachable(
  request: Pick<AskRequest, 'channel' | 'recipient' | 'extra_surfaces'>,
  channels: ChannelDirectory,
): Promise<void> {
  const first = request.channel === null ? [] : [{ channel: request.channel, recipient: request.recipient }];
  const targets = [...first, ...request.extra_surfaces];
  for (const [index, target] of targets.entries()) {
    const check = channels.get(target.channel)?.capabilities.recipientUnreachable;
    if (check === undefined || target.recipient === null) continue;
    const reason = await check(target.recipient);
    if (reason === null) continue;
    const field = targets.length === 1 ? 'recipient' : `deliver[${index}].recipient`;
    throw invalid(field, `${field} ${reason}`);
  }
}
