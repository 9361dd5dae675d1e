import Stripe from 'stripe';
import { api } from '../helpers/http.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

/** The real stripe package's signer: what a Stripe endpoint would send. */
const stripe = new Stripe('sk_test_askgate');
export const STRIPE_SECRET = 'whsec_test_askgate_signing_secret';
export const BRIDGE_SECRET = 'bridge-secret-for-tests-0123456789';

export function stripeHeader(
  payload: string,
  secret = STRIPE_SECRET,
  timestamp = Math.floor(Date.now() / 1000),
): string {
  return stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp });
}

/** A gateway with a public base URL (so tickets are minted) and the test secrets in its environment. */
export function startCallbackGateway(env: Record<string, string> = {}): Promise<TestGateway> {
  return startTestGateway({
    INTERACTIONS_PUBLIC_BASE_URL: 'http://127.0.0.1:9',
    INTERACTIONS_CALLBACK_RATE: '10000/60',
    STRIPE_WEBHOOK_SECRET: STRIPE_SECRET,
    TAI_BRIDGE_CALLBACK_SECRET: BRIDGE_SECRET,
    ...env,
  });
}

/** Asks (without waiting) and returns the id and the door path of its ticket on this gateway. */
export async function askFor(
  gw: TestGateway,
  body: Record<string, unknown>,
): Promise<{ id: string; path: string; ticket: string }> {
  const res = await api(gw.url, gw.token).post('/api/interactions', { timeout: 60, ...body });
  if (res.status !== 201) throw new Error(`ask refused: ${res.status} ${JSON.stringify(res.json)}`);
  const url = new URL(res.json['callback_url'] as string);
  return { id: res.json['id'] as string, path: url.pathname, ticket: url.pathname.split('/').pop() as string };
}

export interface Raw {
  status: number;
  body: string;
  headers: Headers;
  json(): Record<string, unknown>;
}

/** A tokenless request at the callback door, as an outside system or a browser makes it. */
export async function door(
  gw: TestGateway,
  path: string,
  init: { method?: string; body?: string; headers?: Record<string, string> } = {},
): Promise<Raw> {
  const res = await fetch(`${gw.url}${path}`, {
    method: init.method ?? 'GET',
    headers: init.headers ?? {},
    body: init.body ?? null,
  });
  const body = await res.text();
  return { status: res.status, body, headers: res.headers, json: () => JSON.parse(body) as Record<string, unknown> };
}

export function postJson(
  gw: TestGateway,
  path: string,
  payload: unknown,
  headers: Record<string, string> = {},
): Promise<Raw> {
  const body = typeof payload === 'string' ? payload : JSON.stringify(payload);
  return door(gw, path, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
}

export async function recordOf(gw: TestGateway, id: string): Promise<Record<string, unknown>> {
  return (await api(gw.url, gw.token).get(`/api/interactions/${id}`)).json;
}
