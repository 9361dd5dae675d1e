import type { ServerResponse } from 'node:http';
import { api, type Api } from '../helpers/http.js';
import { spawnGateway, type GatewayProcess } from '../helpers/process.js';
import { startVerifyingServer, webhookSecret } from '../park/helpers.js';

/** What the fault suite's webhook target did with one delivery attempt. */
export interface Attempt {
  /** The `webhook-id`: one per continuation, the same on every retry. */
  id: string;
  runId: string;
  type: string;
  /** Milliseconds since the receiver started. */
  at: number;
  /** `pending` while a slow answer is on its way; `abandoned` when the sender gave up on it first. */
  outcome: 'ok' | 'refused' | 'reset' | 'hung' | 'pending' | 'abandoned';
}

/**
 * A resume-webhook target that misbehaves on purpose, per path, for the first `n` attempts of each `webhook-id`:
 * `/fail/<n>/…` answers 500, `/reset/<n>/…` destroys the connection without a response, `/slow/<ms>/<n>/…` answers
 * 200 only after `ms`, `/hang/<n>/…` never answers. Any other path (and every later attempt) answers 200. Every
 * request is verified with the `standardwebhooks` package first, as a user's receiver would.
 */
export interface FaultReceiver {
  url: string;
  attempts: Attempt[];
  /** Deliveries answered 2xx: the completions the receiver saw. */
  completed(runId: string): Attempt[];
  unverified: number;
  close(): Promise<void>;
}

export async function startFaultReceiver(secret: string): Promise<FaultReceiver> {
  const started = Date.now();
  const attempts: Attempt[] = [];
  const hung: ServerResponse[] = [];
  const state = { unverified: 0 };
  const server = await startVerifyingServer(
    secret,
    ({ path, id, body }, res) => {
      const seen = attempts.filter((a) => a.id === id).length; // counted before this attempt is added
      const attempt: Attempt = {
        id,
        runId: String(body['run_id']),
        type: String(body['type']),
        at: Date.now() - started,
        outcome: 'pending',
      };
      attempts.push(attempt);
      const record = (outcome: Attempt['outcome']): void => {
        attempt.outcome = outcome;
      };
      const [, mode, first, second] = path.split('/');
      const times = Number(mode === 'slow' ? second : first);
      const misbehave = seen < (Number.isFinite(times) ? times : 0);
      if (misbehave && mode === 'fail') {
        record('refused');
        res.writeHead(500).end();
      } else if (misbehave && mode === 'reset') {
        record('reset');
        res.socket?.destroy();
      } else if (misbehave && mode === 'hang') {
        record('hung');
        hung.push(res);
      } else if (misbehave && mode === 'slow') {
        setTimeout(() => {
          if (res.destroyed || res.socket === null || res.socket.destroyed) {
            record('abandoned');
            return;
          }
          record('ok');
          res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        }, Number(first));
      } else {
        record('ok');
        // A conversation turn's answer is the reply the route posts into the chat.
        const reply = body['type'] === 'conversation.turn' ? { text: 'on it' } : {};
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
      }
    },
    () => (state.unverified += 1),
  );
  return {
    url: server.url,
    attempts,
    completed: (runId) => attempts.filter((a) => a.runId === runId && a.outcome === 'ok'),
    get unverified() {
      return state.unverified;
    },
    async close() {
      for (const res of hung) res.socket?.destroy();
      await server.close();
    },
  };
}

/** Prints one figure of a fault scenario, so the run's log lists each fault with its numbers. */
export function figure(fault: string, figures: Record<string, number | string>): void {
  const line = Object.entries(figures)
    .map(([name, value]) => `${name}: ${value}`)
    .join(', ');
  console.log(`[fault] ${fault} — ${line}`);
}

/** The identity every fault scenario asks as: one token with every scope and a webhook secret. */
export interface FaultIdentity {
  token: string;
  secret: string;
  /** The environment of a serve or worker process on `redisUrl` under `prefix`. */
  env(redisUrl: string, prefix: string, extra?: Record<string, string>): Record<string, string>;
}

export function faultIdentity(name: string): FaultIdentity {
  const token = `fault-${name}-token-0123456789abcdef`;
  const secret = webhookSecret();
  return {
    token,
    secret,
    env: (redisUrl, prefix, extra = {}) => ({
      REDIS_URL: redisUrl,
      ASKGATE_REDIS_PREFIX: prefix,
      ASKGATE_TOKENS: JSON.stringify({
        [token]: { identity: name, scopes: ['read', 'write', 'answer'], webhook_secret: secret },
      }),
      ASKGATE_RESUME_BACKOFF_MS: '200',
      // The webhook targets here listen on loopback, which a deployment's outbound rules would otherwise refuse.
      ASKGATE_WEBHOOK_ALLOW_PRIVATE: '1',
      ...extra,
    }),
  };
}

/** The JSON client of `process` for `token`. */
export function client(process: GatewayProcess, token: string): Api {
  return api(process.url as string, token);
}

export { spawnGateway, type GatewayProcess };
export { inMs, stopChild, until } from '../park/helpers.js';
