import type { AskRequest } from './ask-request.js';
import { newTicketSecret, ticketOf } from './ids.js';
import type { Clock, CoreSettings, Store } from './ports.js';
import { buildRecord, callbackUrl, needsTicket } from './record-builder.js';
import { toPublicRecord } from './record.js';
import type { Identity, InteractionRecord, StoredInteraction } from './types.js';

/**
 * A validated ask made into its record and, once stored, into what the asker reads back. Apart from the service so
 * the one place a ticket secret exists in the clear (between minting and the asker's response) is small enough to
 * read at once: the record keeps only its hash, and the callback URL goes to the asker alone.
 */

/** The response to an ask: the record, the callback URL for the asker alone, and `suspended` for a park. */
export type AskResponse = InteractionRecord & { suspended?: true };

/** A record built for an ask, with the callback URL its ticket opens (when it has one). */
export interface Minted {
  record: StoredInteraction;
  callbackUrl: string | undefined;
}

/** What minting reads: the store that places the id, the public base URL of callback links, the clock. */
export interface MintDeps {
  store: Store;
  settings: CoreSettings;
  now: Clock;
}

/** The record of a validated ask (placed in its shard), with a fresh ticket (kept only as its hash) when the ask needs a callback URL. */
export async function mintAsk(
  request: AskRequest,
  identity: Identity,
  runId: string | null,
  deps: MintDeps,
): Promise<Minted> {
  const baseUrl = deps.settings.publicBaseUrl;
  const secret = needsTicket(request, baseUrl) ? newTicketSecret() : null;
  // A sharded store places the ask (its id names the shard); any other store takes the plain random id.
  const placed = await deps.store.newInteractionId?.({ runId, groupId: request.group_id });
  const ids = placed === undefined ? undefined : { interactionId: () => placed };
  const record = buildRecord(request, identity, secret, deps.now(), ids);
  return {
    record,
    // The ticket names its record (`<secret>.<id>`), so the callback door finds it without a key of its own.
    callbackUrl: secret === null || baseUrl === null ? undefined : callbackUrl(baseUrl, ticketOf(secret, record.id)),
  };
}

/** What the asker reads back: the public record, and the callback URL only the asker ever sees. */
export function responseOf({ record, callbackUrl }: Minted): AskResponse {
  const response: AskResponse = toPublicRecord(record);
  if (callbackUrl !== undefined) response.callback_url = callbackUrl;
  return response;
}
