import type { AskBody, InteractionRecord } from './types.js';

/**
 * One ask through a gateway, waited on in slices so the waiter can report progress between them. Shared by the
 * `ask_human` tool and the elicitation path: both ask, wait, and must withdraw the question when their own caller
 * goes away.
 */

/**
 * What asking needs from a gateway: the SDK's `AskgateClient` is one (over HTTP, for `askgate mcp` and the proxy);
 * `serviceAsker` another (in the gateway's own process, for `/mcp`).
 */
export interface Asker {
  /** Asks; rejects with the gateway's refusal (nothing asked). */
  create(body: AskBody, options?: { signal?: AbortSignal }): Promise<InteractionRecord>;
  /** The record once it leaves `pending`, or after `waitSeconds`. */
  result(id: string, waitSeconds: number, options?: { signal?: AbortSignal }): Promise<InteractionRecord>;
  /** Withdraws a pending question as its asker. */
  cancel(id: string): Promise<unknown>;
}

/** How an ask ended. `undeliverable`: every chat delivery failed, so nobody will see it. */
export type AskEnd =
  | { kind: 'answered'; record: InteractionRecord }
  | { kind: 'expired' | 'cancelled' | 'undeliverable'; record: InteractionRecord };

export interface AskAndWaitOptions {
  /** Aborted when the caller went away: the question is cancelled (a late answer is told 410) and this rejects. */
  signal?: AbortSignal;
  /** Called after each slice with the seconds waited so far (always growing) and the seconds the ask may take. */
  onProgress?: (waitedSeconds: number, totalSeconds: number, record: InteractionRecord) => Promise<void> | void;
  /** The longest slice between two progress reports, in seconds (1..60). Default 10. */
  sliceSeconds?: number;
  /** Called once the question exists, before the first wait. */
  onCreated?: (record: InteractionRecord) => void;
}

/** Every chat delivery of the question failed: the gateway marks it undeliverable, and waiting longer cannot help. */
function undeliverable(record: InteractionRecord): boolean {
  return record.undeliverable === true;
}

/** Asks and waits for the end. A refused ask rejects with the gateway's `AskgateHttpError` (nothing was asked). */
export async function askAndWait(client: Asker, body: AskBody, options: AskAndWaitOptions = {}): Promise<AskEnd> {
  const { signal } = options;
  signal?.throwIfAborted();
  let record = await client.create(body, signal === undefined ? {} : { signal });
  options.onCreated?.(record);
  const started = Date.now();
  const total = Math.max(1, Math.round((Date.parse(record.deadline_at) - Date.parse(record.created_at)) / 1000));
  const slice = Math.min(60, Math.max(1, Math.floor(options.sliceSeconds ?? 10)));
  try {
    for (;;) {
      if (record.status === 'answered') return { kind: 'answered', record };
      if (record.status === 'expired' || record.status === 'cancelled') return { kind: record.status, record };
      if (undeliverable(record)) return { kind: 'undeliverable', record };
      const left = Math.ceil((Date.parse(record.deadline_at) - Date.now()) / 1000) + 2;
      record = await client.result(
        record.id,
        Math.max(1, Math.min(slice, left)),
        signal === undefined ? {} : { signal },
      );
      if (record.status === 'pending') {
        await options.onProgress?.((Date.now() - started) / 1000, total, record);
      }
    }
  } catch (error) {
    if (signal?.aborted === true) {
      // Nobody waits any more: withdraw the question so a late answer is told it came too late.
      await client.cancel(record.id).catch(() => undefined);
    }
    throw error;
  }
}
