import { AskgateClient } from './client.js';
import { AskgateHttpError, AskgateSdkError } from './errors.js';
import { defaultFetch } from './node-fetch.js';
import { GatewayTransport } from './transport.js';
import type {
  ClaimBody,
  ClaimResponse,
  CompleteBody,
  CompleteResponse,
  ContinuationPayload,
  ConversationTurnPayload,
  ExtendBody,
  FailBody,
} from './wire/continuations.js';

/**
 * What a handler receives, with which attempt this is (1 on the first run): a continuation body (`run.resumed`,
 * `run.killed`), or — for a handler that is the target of a chat route — a `conversation.turn`.
 */
export type Continuation = (ContinuationPayload | ConversationTurnPayload) & { attempt: number };

/**
 * A continuation registered under a name. It runs when a run parked with `{"resume": {"handler": "<name>"}}`
 * resumes (`type: "run.resumed"`) or is killed (`type: "run.killed"`). A throw is retried with backoff. Its return
 * value is the run's output: for a run reached over chat, the reply mapped into the originating thread.
 */
export type ContinuationHandler = (continuation: Continuation) => unknown;

/** Options of `startWorker`. */
export interface ContinuationWorkerOptions {
  /** The gateway's base URL, e.g. `http://127.0.0.1:8080` (a path prefix is kept). Required. */
  url: string;
  /**
   * A bearer token (scope `write`) of the identity whose runs this worker continues: the identity that parks them,
   * or a route's identity for its turns. Required; never echoed in errors.
   */
  token: string;
  /** Continuations by name. Required, at least one. */
  handlers: Record<string, ContinuationHandler>;
  /** Continuations run at once per handler. Default 8. */
  concurrency?: number;
  /**
   * The lease on a running continuation, ms (1000..600000): the worker lengthens it every half lease while the
   * handler runs; a worker that goes silent (killed, frozen) this long loses it, and the continuation runs again on
   * another worker. Default 30000.
   */
  lockDurationMs?: number;
  /** First retry delay after a handler throws, ms (doubles per attempt, with jitter, capped at 15 min). Default 1000. */
  backoffMs?: number;
  /** The fetch to use (a proxy agent, a test double). Default: the global `fetch`. */
  fetch?: typeof fetch;
  /**
   * Told of every failed exchange with the gateway (unreachable, refused); the worker carries on, retrying claims
   * with backoff. Default: a line on stderr.
   */
  onError?: (error: Error) => void;
}

/** A running continuation worker. */
export interface ContinuationWorker {
  /** Stops claiming, waits for running continuations (and their reports), then resolves. */
  close(): Promise<void>;
}

/** Handler names as `run.resume.handler` takes them. */
const HANDLER_NAME = /^[A-Za-z0-9_.-]{1,100}$/;
/** Seconds one claim waits on the gateway for a continuation to fall due. */
const CLAIM_WAIT_SECONDS = 30;
/** Waits after a failed claim, ms: doubling from the first to the last. */
const CLAIM_RETRY_MS = [250, 500, 1000, 2000, 5000] as const;
/** Tries of a report (complete, fail) the gateway did not answer, 500 ms apart. */
const REPORT_TRIES = 5;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs registered continuations for parked runs, in any number of processes beside any number of gateways, over
 * the gateway's continuation doors only (docs/sdk.md, "Continuation workers"; docs/doors.md, "Continuations").
 *
 * Each handler has `concurrency` slots; each slot claims (`POST /api/continuations/claim`, a long-poll the gateway
 * answers the moment a continuation falls due), runs the handler with the lease lengthened every half lease, and
 * reports: `complete` with the return value, or `fail` with the error (the gateway retries it with backoff).
 *
 * The guarantee: a continuation that completed never runs again — the gateway records the completion once, under
 * the lease. A worker that dies while a handler runs stops lengthening its lease; once it lapses the gateway offers
 * the continuation again, with the same `resume_id` and a higher `attempt`. Handler side effects outside askgate
 * should therefore be idempotent on `resume_id`.
 *
 * ```ts
 * import { startWorker } from 'askgate-sdk';
 * const worker = await startWorker({ url: 'http://127.0.0.1:8080', token: process.env.ASKGATE_TOKEN!, handlers: {
 *   deploy: async (c) => { if (c.type === 'run.resumed' && c.ask_result?.answer === true) await deploy(c.state); },
 * } });
 * ```
 */
export async function startWorker(options: ContinuationWorkerOptions): Promise<ContinuationWorker> {
  if (options.url === undefined && (options as { redisUrl?: unknown }).redisUrl !== undefined)
    throw new AskgateSdkError(
      'startWorker reaches the gateway over HTTP: pass url (the gateway) and token (the identity that parks the ' +
        'runs) instead of redisUrl.',
    );
  const names = Object.keys(options.handlers ?? {});
  if (names.length === 0)
    throw new AskgateSdkError(
      'handlers is empty; register at least one continuation, e.g. { handlers: { deploy: async (c) => {...} } }.',
    );
  const bad = names.find((n) => !HANDLER_NAME.test(n));
  if (bad !== undefined)
    throw new AskgateSdkError(
      `handler name "${bad}" must be 1..100 letters, digits, "_", "." or "-" (as in run.resume.handler).`,
    );
  const leaseMs = options.lockDurationMs ?? 30_000;
  if (!Number.isInteger(leaseMs) || leaseMs < 1000 || leaseMs > 600_000)
    throw new AskgateSdkError(`lockDurationMs must be a whole number of ms from 1000 to 600000, not ${leaseMs}.`);
  const concurrency = options.concurrency ?? 8;
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new AskgateSdkError(`concurrency must be a whole number of at least 1, not ${concurrency}.`);
  const fetchImpl = options.fetch ?? defaultFetch();
  // The client checks url and token (and says how to fix them); the worker shares its transport's rules.
  const client = new AskgateClient({ url: options.url, token: options.token, fetch: fetchImpl });
  const http = new GatewayTransport(client.url, options.token, fetchImpl);
  const onError = options.onError ?? ((error: Error) => process.stderr.write(`askgate worker: ${error.message}\n`));
  const stopping = new AbortController();

  const claimBody = (handler: string): ClaimBody => ({
    handlers: [handler],
    wait: CLAIM_WAIT_SECONDS,
    lease_ms: leaseMs,
  });
  const claim = async (handler: string): Promise<ClaimResponse | null> => {
    const response = await http.send('POST', '/api/continuations/claim', {
      body: claimBody(handler),
      signal: stopping.signal,
    });
    if (response.status === 204) return null;
    return (await response.json()) as ClaimResponse;
  };

  /**
   * Completes and claims the next continuation in one request. Any failure of it (the worker closing mid-wait, the
   * gateway unreachable, a 5xx) leaves unknown whether the completion was recorded: `undefined` says so, and the
   * caller reports it again on its own, where `already_completed` then means it was.
   */
  const completeAndClaim = async (
    path: string,
    body: CompleteBody,
    handler: string,
  ): Promise<ClaimResponse | null | undefined> => {
    try {
      const done = await http.json<CompleteResponse>('POST', path, {
        body: { ...body, claim: claimBody(handler) },
        signal: stopping.signal,
      });
      return done.next ?? null;
    } catch (error) {
      if (error instanceof AskgateHttpError && error.status < 500) {
        onError(error);
        return null;
      }
      return undefined;
    }
  };

  /**
   * Sends a report; retried while the gateway does not answer; a refusal (409: the lease lapsed) is final. After an
   * attempt whose outcome is unknown (`uncertain`), `already_completed` means that attempt was recorded.
   */
  const report = async (path: string, body: CompleteBody | FailBody, uncertain = false): Promise<void> => {
    for (let tries = 1; ; tries++) {
      try {
        await http.send('POST', path, { body });
        return;
      } catch (error) {
        if (error instanceof AskgateHttpError && error.status < 500) {
          if (!(uncertain || tries > 1) || error.code !== 'already_completed') onError(error);
          return;
        }
        if (tries >= REPORT_TRIES) {
          onError(error as Error);
          return;
        }
        await sleep(500);
      }
    }
  };

  /** Runs one continuation and reports it; resolves with the next one when the report claimed it too. */
  const run = async (
    name: string,
    handler: ContinuationHandler,
    claimed: ClaimResponse,
  ): Promise<ClaimResponse | null> => {
    const path = `/api/continuations/${encodeURIComponent(claimed.resume_id)}`;
    // Lengthen the lease while the handler runs, every half lease (as BullMQ renews a lock).
    const extend: ExtendBody = { lease_id: claimed.lease_id, lease_ms: leaseMs };
    const renew = setInterval(() => {
      http.send('POST', `${path}/extend`, { body: extend }).catch((error: unknown) => onError(error as Error));
    }, leaseMs / 2);
    let outcome: { ok: true; output: unknown } | { ok: false; error: unknown };
    try {
      outcome = { ok: true, output: await handler(claimed.continuation) };
    } catch (error) {
      outcome = { ok: false, error };
    } finally {
      clearInterval(renew);
    }
    if (outcome.ok) {
      const complete: CompleteBody = { lease_id: claimed.lease_id, output: outcome.output ?? null };
      if (!stopping.signal.aborted) {
        const next = await completeAndClaim(`${path}/complete`, complete, name);
        if (next !== undefined) return next;
      }
      await report(`${path}/complete`, complete, true);
      return null;
    }
    const error = outcome.error;
    const message = error instanceof Error ? error.message : String(error);
    await report(`${path}/fail`, {
      lease_id: claimed.lease_id,
      error: message.length > 0 ? message : 'the handler threw',
      ...(options.backoffMs === undefined ? {} : { retry_base_ms: options.backoffMs }),
    });
    return null;
  };

  const slot = async (name: string, handler: ContinuationHandler): Promise<void> => {
    let failures = 0;
    let next: ClaimResponse | null = null;
    while (!stopping.signal.aborted || next !== null) {
      if (next !== null) {
        next = await run(name, handler, next);
        continue;
      }
      let claimed: ClaimResponse | null;
      try {
        claimed = await claim(name);
        failures = 0;
      } catch (error) {
        if (stopping.signal.aborted) return;
        onError(error as Error);
        await sleep(CLAIM_RETRY_MS[Math.min(failures++, CLAIM_RETRY_MS.length - 1)] as number);
        continue;
      }
      if (claimed !== null) next = await run(name, handler, claimed);
    }
  };

  const slots = names.flatMap((name) =>
    Array.from({ length: concurrency }, () => slot(name, options.handlers[name] as ContinuationHandler)),
  );
  return {
    async close() {
      stopping.abort(new Error('the worker is closing'));
      await Promise.all(slots);
    },
  };
}
