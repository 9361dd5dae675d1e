import type { IncomingHttpHeaders } from 'node:http';
import { AskgateError } from '../core/errors.js';
import type { Store } from '../core/store-port.js';
import type { Logger } from '../observability/logger.js';
import type { ConfirmationJobs } from './jobs.js';
import { type ConfirmationProvider, ProviderNotConfigured } from './providers/types.js';

/**
 * The ingress of a provider's signed events. Order: the signature first (401 otherwise, nothing read or written);
 * then the seen-set, keyed on the event id and held until the signature's tolerance ends, so a replayed delivery is
 * `already_seen` and dispatches nothing; then the event is handed to the bridge's job queue, which keeps it until it
 * is delivered or an operator deals with it. A `200` means the event is kept.
 */

export type IngressVerdict =
  | { status: 'accepted' }
  | { status: 'already_seen' }
  | { status: 'ignored'; reason: string };

export interface IngressDeps {
  store: Store;
  /** Null on the in-memory store: nothing could keep an accepted event, so the ingress refuses with 503. */
  jobs: ConfirmationJobs | null;
  logger: Logger;
}

export async function ingest(
  provider: ConfirmationProvider,
  rawBody: Buffer,
  headers: IncomingHttpHeaders,
  deps: IngressDeps,
): Promise<IngressVerdict> {
  const nowMs = Date.now();
  let verdict: ReturnType<ConfirmationProvider['verifyEvent']>;
  try {
    verdict = provider.verifyEvent(rawBody, headers, nowMs);
  } catch (err) {
    if (err instanceof ProviderNotConfigured) throw new AskgateError('not_configured', err.message);
    throw err;
  }
  if (!verdict.ok) throw new AskgateError('unauthorized', verdict.reason);
  if (deps.jobs === null)
    throw new AskgateError(
      'not_configured',
      'this gateway runs on the in-memory store, which cannot keep an accepted event until it is delivered; ' +
        'set REDIS_URL.',
    );
  const event = provider.readEvent(rawBody, headers);
  const seenKey = `${provider.name}:${event.eventId}`;
  const ttlMs = (event.signedAtSeconds + provider.toleranceSeconds) * 1000 - nowMs;
  if (!(await deps.store.markSeen(seenKey, ttlMs))) return { status: 'already_seen' };
  if (event.kind === 'ignored') return { status: 'ignored', reason: event.reason };
  try {
    await deps.jobs.enqueue({
      provider: provider.name,
      eventId: event.eventId,
      confirmation: event.confirmation,
      receivedAt: new Date(nowMs).toISOString(),
    });
  } catch (err) {
    // Not kept: forget the id, so the provider's retry of this event is accepted again.
    await deps.store.unmarkSeen(seenKey).catch(() => undefined);
    throw err;
  }
  deps.logger.info(
    { provider: provider.name, event: event.eventId, session: event.confirmation.session },
    'confirmation event accepted',
  );
  return { status: 'accepted' };
}
