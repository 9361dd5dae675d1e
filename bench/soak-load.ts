import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FakeTelegram } from '../test/fakes/telegram-server.js';
import { postUpdate, tapUpdate } from '../test/fakes/telegram-updates.js';

/**
 * The soak's traffic, one second at a time: sync asks (most answered, some left to expire, some awaited on the result
 * door), parks resumed through a webhook (most answered, some resumed by their deadline), Telegram asks answered by
 * a tap on the fake, and SSE clients that come and go. Every loop is bounded; the counts say what was done.
 */

export interface SoakCounts {
  asks: number;
  answers: number;
  waits: number;
  parks: number;
  resumes: number;
  telegramAsks: number;
  taps: number;
  sseOpened: number;
  sseEvents: number;
  /** Responses the soak did not expect (a 5xx, a refused ask): must stay 0. */
  unexpected: number;
  /** What the first few unexpected responses were. */
  surprises: string[];
}

export interface LoadTarget {
  gatewayUrl: string;
  token: string;
  telegram: FakeTelegram;
  telegramSecret: string;
  receiverUrl: string;
  /** Seconds a sync ask waits, and a park's deadline from now. */
  deadlineSeconds: number;
}

export function emptyCounts(): SoakCounts {
  return {
    asks: 0,
    answers: 0,
    waits: 0,
    parks: 0,
    resumes: 0,
    telegramAsks: 0,
    taps: 0,
    sseOpened: 0,
    sseEvents: 0,
    unexpected: 0,
    surprises: [],
  };
}

/** A resume-webhook target that answers 200 and counts the continuations it was handed. */
export async function startCountingReceiver(counts: SoakCounts): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      counts.resumes += 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise<void>((r) => server.close(() => r())) };
}

async function call(
  target: LoadTarget,
  method: string,
  path: string,
  body?: unknown,
): Promise<Record<string, unknown>> {
  const res = await fetch(`${target.gatewayUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${target.token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  return { status: res.status, ...(text === '' ? {} : (JSON.parse(text) as Record<string, unknown>)) };
}

/** SSE clients on the stream door: `open` more, `close` the oldest; each counts the events it reads. */
export class SseClients {
  private readonly open: AbortController[] = [];

  constructor(
    private readonly target: LoadTarget,
    private readonly counts: SoakCounts,
  ) {}

  connect(n: number): void {
    for (let i = 0; i < n; i += 1) {
      const abort = new AbortController();
      this.open.push(abort);
      this.counts.sseOpened += 1;
      void fetch(`${this.target.gatewayUrl}/api/interactions/stream`, {
        headers: { authorization: `Bearer ${this.target.token}`, accept: 'text/event-stream' },
        signal: abort.signal,
      })
        .then(async (res) => {
          if (res.body === null) return;
          const decoder = new TextDecoder();
          const reader = res.body.getReader();
          for (;;) {
            const { done, value } = await reader.read();
            if (done) return;
            const text = decoder.decode(value, { stream: true });
            this.counts.sseEvents += text.split('\nevent:').length - 1 + (text.startsWith('event:') ? 1 : 0);
          }
        })
        .catch(() => undefined); // aborted on purpose
    }
  }

  disconnect(n: number): void {
    for (const abort of this.open.splice(0, n)) abort.abort();
  }

  closeAll(): void {
    this.disconnect(this.open.length);
  }
}

let seq = 0;
const chats = Array.from({ length: 60 }, (_, i) => String(8_100_000 + i));

/** One second of traffic; resolves when every request it started has its response. */
export async function oneSecond(target: LoadTarget, counts: SoakCounts): Promise<void> {
  const work: Array<Promise<void>> = [];
  const expect = (ok: boolean, what: string, got: unknown): void => {
    if (ok) return;
    counts.unexpected += 1;
    if (counts.surprises.length < 10) counts.surprises.push(`${what}: ${JSON.stringify(got)}`.slice(0, 300));
  };
  // Ten sync asks: eight answered (two of them awaited on the result door first), two left to expire.
  for (let i = 0; i < 10; i += 1) {
    work.push(
      (async () => {
        const n = ++seq;
        const asked = await call(target, 'POST', '/api/interactions', {
          question: `Soak question ${n}?`,
          answer_format: 'text',
          timeout: target.deadlineSeconds,
        });
        expect(asked['status'] === 'pending', 'ask', asked);
        counts.asks += 1;
        if (i >= 8) return;
        const waiting = i < 2 ? call(target, 'GET', `/api/interactions/${asked['id']}/result?wait=5`) : null;
        const answered = await call(target, 'POST', `/api/interactions/${asked['id']}/answer`, { answer: `a${n}` });
        expect(answered['status'] === 'answered', 'answer', answered);
        counts.answers += 1;
        if (waiting !== null) {
          const waited = await waiting;
          expect(waited['status'] === 'answered', 'result wait', waited);
          counts.waits += 1;
        }
      })(),
    );
  }
  // Three parks resuming through the webhook: two answered, one resumed by its deadline.
  for (let i = 0; i < 3; i += 1) {
    work.push(
      (async () => {
        const n = ++seq;
        const parked = await call(target, 'POST', '/api/interactions', {
          question: `Soak park ${n}?`,
          answer_format: 'confirm',
          mode: 'async',
          on_expiry: 'resume',
          expiry_at: new Date(Date.now() + target.deadlineSeconds * 1000).toISOString(),
          run: { run_id: `soak-run-${n}`, resume: { webhook: `${target.receiverUrl}/resume` } },
        });
        expect(parked['suspended'] === true, 'park', parked);
        counts.parks += 1;
        if (i === 2) return;
        const answered = await call(target, 'POST', `/api/interactions/${parked['id']}/answer`, { answer: true });
        expect(answered['status'] === 'answered', 'answer', answered);
        counts.answers += 1;
      })(),
    );
  }
  // Two Telegram asks: one answered by a tap on its button, one left to expire.
  for (let i = 0; i < 2; i += 1) {
    work.push(
      (async () => {
        const n = ++seq;
        const chat = chats[n % chats.length] as string;
        const question = `Soak chat ${n}?`;
        const asked = await call(target, 'POST', '/api/interactions', {
          question,
          answer_format: 'confirm',
          channel: 'telegram',
          recipient: chat,
          timeout: target.deadlineSeconds,
        });
        expect(asked['status'] === 'pending', 'ask', asked);
        counts.telegramAsks += 1;
        if (i === 1) return;
        const message = target.telegram.messagesIn(chat).find((m) => m.text.includes(question));
        if (message === undefined) return expect(false, 'telegram message', { chat, question });
        const tapped = await postUpdate(target.gatewayUrl, target.telegramSecret, tapUpdate(message, { label: 'Yes' }));
        expect(tapped === 200, 'tap', tapped);
        counts.taps += 1;
      })(),
    );
  }
  work.push(new Promise((r) => setTimeout(r, 1_000)));
  await Promise.all(work.map((w) => w.catch((err: unknown) => expect(false, 'request failed', String(err)))));
}
