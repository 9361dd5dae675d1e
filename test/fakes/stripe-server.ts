import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback Stripe API for what askgate calls through the real `stripe` package (`STRIPE_API_URL`):
 * `POST /v1/checkout/sessions` (form-encoded with bracketed keys, as stripe-node sends it; `Authorization: Bearer
 * sk_...`) and `GET /v1/checkout/sessions` (`created[gte]`, `status`, `limit`, `starting_after`, `has_more`, newest
 * first). It completes a session and posts the signed `checkout.session.completed` event (`Stripe-Signature:
 * t=…,v1=…`, HMAC-SHA256 over `${t}.${body}`) to the gateway's `/webhooks/stripe`, or holds it unsent.
 *
 * What Stripe refuses on a session create (400, `invalid_request_error`, naming the `param`):
 * - metadata over Stripe's limits — "You can specify up to 50 keys, with key names up to 40 characters long and
 *   values up to 500 characters long" (https://docs.stripe.com/api/metadata);
 * - line_items outside https://docs.stripe.com/api/checkout/sessions/create#create_checkout_session-line_items: 1..100
 *   items in payment mode, each with a `price` or a `price_data` (a 3-letter currency, a product or product_data with
 *   a name, a non-negative integer unit_amount), and a positive integer quantity;
 * - a client_reference_id over 200 characters.
 * And outages a test switches on (`outage`): the next calls answer 500 `api_error` ("Something went wrong on
 * Stripe's end", https://docs.stripe.com/api/errors) or have their connection reset before any answer.
 */

export const STRIPE_KEY = 'sk_test_askgate_fake_0123456789';
export const STRIPE_WHSEC = 'whsec_askgate_fake_signing_secret';

export interface FakeSession {
  id: string;
  object: 'checkout.session';
  created: number;
  status: 'open' | 'complete' | 'expired';
  payment_status: 'unpaid' | 'paid' | 'no_payment_required';
  mode: string;
  url: string;
  success_url: string | null;
  client_reference_id: string | null;
  metadata: Record<string, string>;
  /** Not on Stripe's session object (it is a separate list there); kept to check what askgate sent. */
  sent_line_items: unknown;
}

/** A signed delivery: the exact bytes and the header Stripe would send. */
export interface SignedEvent {
  id: string;
  payload: string;
  header: string;
}

export interface FakeStripe {
  readonly apiUrl: string;
  readonly sessions: Map<string, FakeSession>;
  /** Where events are posted: the gateway's `/webhooks/stripe`. */
  webhookUrl: string | null;
  /** Adds a session directly (e.g. one carrying a callback URL askgate never minted). */
  addSession(fields: Partial<FakeSession>): FakeSession;
  /** Completes a session and signs its `checkout.session.completed` event; nothing is sent. */
  complete(id: string, options?: { paymentStatus?: FakeSession['payment_status'] }): SignedEvent;
  /** Any event, signed (`timestamp` in epoch seconds, default now). */
  sign(event: Record<string, unknown>, options?: { secret?: string; timestamp?: number }): SignedEvent;
  /** The next `times` API calls fail: a 500 api_error, or a connection reset with no answer. */
  outage(kind: '500' | 'reset', times?: number): void;
  /** API calls the fake failed with an outage. */
  readonly outages: number;
  /** POSTs a signed event to `webhookUrl`. */
  deliver(event: SignedEvent, header?: string): Promise<{ status: number; json: Record<string, unknown> }>;
  close(): Promise<void>;
}

export function stripeSignature(payload: string, secret: string, timestamp: number): string {
  const v1 = createHmac('sha256', secret).update(`${timestamp}.${payload}`).digest('hex');
  return `t=${timestamp},v1=${v1}`;
}

/** `a[b][0][c]=x` → `{a: {b: [{c: "x"}]}}`: the bracketed form stripe-node encodes nested params as. */
export function parseStripeForm(text: string): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const path = key.split(/\[|\]\[|\]/).filter((p) => p !== '');
    let node: Record<string, unknown> | unknown[] = root;
    path.forEach((part, i) => {
      const last = i === path.length - 1;
      const slot = node as Record<string, unknown>;
      if (last) slot[part] = value;
      else {
        slot[part] ??= /^\d+$/.test(path[i + 1] as string) ? [] : {};
        node = slot[part] as Record<string, unknown>;
      }
    });
  }
  return root;
}

/** Why Stripe would refuse these metadata (https://docs.stripe.com/api/metadata), or null. */
function metadataProblem(metadata: unknown): string | null {
  if (metadata === undefined) return null;
  if (typeof metadata !== 'object' || metadata === null) return 'Invalid object';
  const entries = Object.entries(metadata as Record<string, unknown>);
  if (entries.length > 50) return 'Metadata can have up to 50 keys.';
  for (const [key, value] of entries) {
    if (key.length > 40) return `Metadata keys can have up to 40 characters: ${key}`;
    if (String(value).length > 500) return `Metadata values can have up to 500 characters (key ${key}).`;
  }
  return null;
}

/** Why Stripe would refuse these line_items in payment mode, and the param it names, or null. */
function lineItemsProblem(items: unknown): { message: string; param: string } | null {
  if (!Array.isArray(items) || items.length === 0)
    return { message: 'line_items is required in payment mode.', param: 'line_items' };
  if (items.length > 100) return { message: 'You may only specify up to 100 line items.', param: 'line_items' };
  for (const [i, raw] of items.entries()) {
    const item = (raw ?? {}) as Record<string, unknown>;
    const at = `line_items[${i}]`;
    const quantity = Number(item['quantity']);
    if (item['quantity'] === undefined || !Number.isInteger(quantity) || quantity < 1)
      return { message: 'Quantity is required and must be a positive integer.', param: `${at}[quantity]` };
    const price = item['price'];
    const data = item['price_data'] as Record<string, unknown> | undefined;
    if ((price === undefined) === (data === undefined))
      return { message: 'You must specify exactly one of price or price_data.', param: at };
    if (data === undefined) continue;
    if (typeof data['currency'] !== 'string' || !/^[a-z]{3}$/i.test(data['currency']))
      return { message: 'Invalid currency.', param: `${at}[price_data][currency]` };
    const product = data['product_data'] as Record<string, unknown> | undefined;
    if (data['product'] === undefined && (typeof product?.['name'] !== 'string' || product['name'] === ''))
      return { message: 'Missing required param: product_data[name].', param: `${at}[price_data][product_data][name]` };
    const amount = Number(data['unit_amount']);
    if (data['unit_amount'] === undefined || !Number.isInteger(amount) || amount < 0)
      return { message: 'Invalid non-negative integer.', param: `${at}[price_data][unit_amount]` };
  }
  return null;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

function stripeError(res: ServerResponse, status: number, message: string, param?: string): void {
  send(res, status, { error: { type: 'invalid_request_error', message, ...(param ? { param } : {}) } });
}

export async function startFakeStripe(options: { key?: string; webhookSecret?: string } = {}): Promise<FakeStripe> {
  const key = options.key ?? STRIPE_KEY;
  const webhookSecret = options.webhookSecret ?? STRIPE_WHSEC;
  const sessions = new Map<string, FakeSession>();
  let apiUrl = '';
  let clock = 0;
  const pendingOutages: Array<'500' | 'reset'> = [];
  let outages = 0;

  const server = createServer((req, res) => {
    void (async () => {
      const outage = pendingOutages.shift();
      if (outage !== undefined) {
        outages++;
        await readBody(req);
        if (outage === 'reset') return void req.socket.destroy();
        return send(res, 500, { error: { type: 'api_error', message: "Something went wrong on Stripe's end." } });
      }
      if (req.headers.authorization !== `Bearer ${key}`) return stripeError(res, 401, 'Invalid API Key provided.');
      const url = new URL(req.url ?? '/', apiUrl);
      if (req.method === 'POST' && url.pathname === '/v1/checkout/sessions') {
        const form = parseStripeForm(await readBody(req));
        const items = lineItemsProblem(form['line_items']);
        if (items !== null) return stripeError(res, 400, items.message, items.param);
        const metadata = metadataProblem(form['metadata']);
        if (metadata !== null) return stripeError(res, 400, metadata, 'metadata');
        const reference = form['client_reference_id'];
        if (typeof reference === 'string' && reference.length > 200)
          return stripeError(res, 400, 'client_reference_id can have up to 200 characters.', 'client_reference_id');
        if (typeof form['success_url'] !== 'string')
          return stripeError(res, 400, 'success_url is required.', 'success_url');
        const session = fake.addSession({
          mode: String(form['mode'] ?? 'payment'),
          success_url: form['success_url'],
          client_reference_id: (form['client_reference_id'] as string | undefined) ?? null,
          metadata: (form['metadata'] as Record<string, string> | undefined) ?? {},
          sent_line_items: form['line_items'],
        });
        return send(res, 200, session);
      }
      if (req.method === 'GET' && url.pathname === '/v1/checkout/sessions') {
        const gte = Number(url.searchParams.get('created[gte]') ?? 0);
        const status = url.searchParams.get('status');
        const limit = Math.min(100, Number(url.searchParams.get('limit') ?? 10));
        const after = url.searchParams.get('starting_after');
        let list = [...sessions.values()]
          .filter((s) => s.created >= gte && (status === null || s.status === status))
          .sort((a, b) => b.created - a.created || (a.id < b.id ? 1 : -1));
        if (after !== null) list = list.slice(list.findIndex((s) => s.id === after) + 1);
        return send(res, 200, {
          object: 'list',
          url: '/v1/checkout/sessions',
          data: list.slice(0, limit),
          has_more: list.length > limit,
        });
      }
      stripeError(res, 404, `Unrecognized request URL (${req.method}: ${url.pathname}).`);
    })().catch((err: unknown) => stripeError(res, 500, String(err)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const fake: FakeStripe = {
    apiUrl,
    sessions,
    webhookUrl: null,
    addSession(fields) {
      const id = `cs_test_${randomBytes(12).toString('hex')}`;
      // Distinct, increasing creation times keep the list order stable within one second.
      clock = Math.max(clock + 1, Math.floor(Date.now() / 1000));
      const session: FakeSession = {
        id,
        object: 'checkout.session',
        created: clock,
        status: 'open',
        payment_status: 'unpaid',
        mode: 'payment',
        url: `${apiUrl}/pay/${id}`,
        success_url: null,
        client_reference_id: null,
        metadata: {},
        sent_line_items: null,
        ...fields,
      };
      sessions.set(id, session);
      return session;
    },
    complete(id, opts = {}) {
      const session = sessions.get(id);
      if (session === undefined) throw new Error(`no session ${id}`);
      session.status = 'complete';
      session.payment_status = opts.paymentStatus ?? 'paid';
      const { sent_line_items: _, ...object } = session;
      return fake.sign({
        id: `evt_${randomBytes(12).toString('hex')}`,
        object: 'event',
        type: 'checkout.session.completed',
        api_version: '2025-01-27.acacia',
        created: Math.floor(Date.now() / 1000),
        data: { object },
      });
    },
    sign(event, o = {}) {
      const payload = JSON.stringify(event, null, 2);
      const header = stripeSignature(payload, o.secret ?? webhookSecret, o.timestamp ?? Math.floor(Date.now() / 1000));
      return { id: String(event['id']), payload, header };
    },
    outage(kind, times = 1) {
      for (let i = 0; i < times; i++) pendingOutages.push(kind);
    },
    get outages() {
      return outages;
    },
    async deliver(event, header) {
      if (fake.webhookUrl === null) throw new Error('set webhookUrl first');
      const res = await fetch(fake.webhookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': header ?? event.header },
        body: event.payload,
      });
      const text = await res.text();
      return { status: res.status, json: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  return fake;
}
