import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChannelCore, ChannelPlugin, ChannelStartContext } from '../../channels/contract.js';
import { headerOf, MalformedWebhook, refused, type VerifyInput, type VerifyResult } from '../../channels/http.js';
import { webhookRoutes } from '../../channels/pipeline.js';
import type { ActionLinkMaker } from '../../src/core/action-links.js';
import type { StoredInteraction } from '../../src/core/types.js';

/**
 * A channel that exists only in tests, to hold the channel contract's I/O and lifecycle parts to the real gateway:
 * its webhook verify is asynchronous — an HMAC over the body with a key named by `X-Probe-Kid`, the keys fetched
 * over HTTP from a key server and cached, fetched again for an unknown key id (the shape of a JWT checked against a
 * platform's JWKS) — and it records its start and stop hooks.
 */

/** A loopback key server: `GET /keys` answers `{kid: secret}`; a test rotates keys or takes it down. */
export interface KeyServer {
  url: string;
  keys: Map<string, string>;
  fetches: number;
  down: boolean;
  close(): Promise<void>;
}

export async function startKeyServer(): Promise<KeyServer> {
  const state = { keys: new Map<string, string>(), fetches: 0, down: false };
  const server: Server = createServer((req, res) => {
    state.fetches += 1;
    if (state.down || req.url !== '/keys') {
      res.writeHead(503).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(Object.fromEntries(state.keys)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/keys`;
  return Object.assign(state, {
    url,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

export const signProbe = (body: string, key: string): string => createHmac('sha256', key).update(body).digest('hex');

/** The probe's verify: keys cached, fetched again only for an unknown key id; a key server that fails rejects. */
export function probeVerifier(keysUrl: string): (input: VerifyInput) => Promise<VerifyResult> {
  let cache = new Map<string, string>();
  const fetchKeys = async (): Promise<void> => {
    const res = await fetch(keysUrl);
    if (!res.ok) throw new Error(`the key server answered ${res.status}`);
    cache = new Map(Object.entries((await res.json()) as Record<string, string>));
  };
  return async ({ rawBody, headers }) => {
    const kid = headerOf(headers, 'x-probe-kid');
    const signature = headerOf(headers, 'x-probe-signature');
    if (kid === undefined || signature === undefined)
      return refused('the X-Probe-Kid or X-Probe-Signature header is missing');
    if (!cache.has(kid)) await fetchKeys();
    const key = cache.get(kid);
    if (key === undefined) return refused('X-Probe-Kid names no key of the platform');
    const want = Buffer.from(signProbe(rawBody.toString(), key));
    const got = Buffer.from(signature);
    return got.length === want.length && timingSafeEqual(got, want)
      ? { ok: true }
      : refused('X-Probe-Signature does not match the body');
  };
}

interface ProbeEvent {
  id: string;
  interaction: string;
  answer: unknown;
  from: string;
}

/** What a probe saw of its lifecycle, in order, shared by the probes of one test. */
export type LifecycleLog = string[];

export interface ProbeOptions {
  name: string;
  log: LifecycleLog;
  keysUrl?: string;
  /** Makes start throw (a channel refusing the gateway's start). */
  failStart?: boolean;
  /**
   * Puts signed action links in every question it delivers, as an email channel would: one per choice (`yes`/`no`
   * for confirm, the choice's text for select) for the question's recipient, and `expired`, a `yes` link made to
   * expire a second before its delivery. Start refuses without the core's link maker, naming ASKGATE_LINK_SECRET.
   */
  links?: boolean;
}

/** The links a probe put in one delivered question, by choice. */
export type ProbeLinks = Record<string, string>;

/** Builds one probe channel; `sent` collects the questions it delivered. */
export function probeChannel(
  options: ProbeOptions,
): ChannelPlugin & { sent: StoredInteraction[]; links: Map<string, ProbeLinks> } {
  const { name, log } = options;
  const sent: StoredInteraction[] = [];
  const links = new Map<string, ProbeLinks>();
  let maker: ActionLinkMaker | null = null;
  const linksFor = (interaction: StoredInteraction, linkMaker: ActionLinkMaker): ProbeLinks => {
    const recipient = interaction.recipient ?? '';
    const make = (answer: boolean | string, expiresAt?: Date) =>
      linkMaker.link(interaction, { channel: name, recipient, answer, ...(expiresAt ? { expiresAt } : {}) });
    const made: ProbeLinks =
      interaction.answer_format === 'select'
        ? Object.fromEntries((interaction.choices ?? []).map((choice) => [choice, make(choice)]))
        : { yes: make(true), no: make(false) };
    made['expired'] = make(
      interaction.answer_format === 'select' ? (interaction.choices?.[0] ?? '') : true,
      new Date(Date.now() - 1000),
    );
    return made;
  };
  return {
    name,
    surface: name,
    capabilities: { supportsFormDelivery: false },
    sent,
    links,
    async deliver(interaction) {
      sent.push(interaction);
      if (maker !== null) links.set(interaction.id, linksFor(interaction, maker));
      return { ref: `${name}-${interaction.id}` };
    },
    async showOutcome() {},
    async remind() {
      return {};
    },
    webhooks: (core: ChannelCore) =>
      options.keysUrl === undefined
        ? []
        : webhookRoutes<ProbeEvent>(
            {
              channel: name,
              path: `/channels/${name}/webhook`,
              secret: '',
              verify: probeVerifier(options.keysUrl),
              parse: (raw) => {
                try {
                  return [JSON.parse(raw.toString('utf8')) as ProbeEvent];
                } catch {
                  throw new MalformedWebhook('the body is not JSON');
                }
              },
              dedupeKey: (event) => `${name}:${event.id}`,
              dispatch: async (event) => {
                const outcome = await core.dispatch({
                  question: { by: 'id', id: event.interaction },
                  surface: { channel: name },
                  pick: { kind: 'answer', answer: event.answer },
                  answeredBy: `${name}:${event.from}`,
                  params: null,
                  replyTo: null,
                });
                return { status: 200, body: { outcome: outcome.kind } };
              },
            },
            core,
          ),
    async start(context: ChannelStartContext) {
      log.push(`start ${name} workers=${context.workers}`);
      if (options.links === true) {
        if (context.core.actionLinks === null) throw new Error(`${name} needs action links: set ASKGATE_LINK_SECRET`);
        maker = context.core.actionLinks;
      }
      // A hop through the event loop, so a gateway that did not await this start would run the next one first.
      await new Promise((resolve) => setImmediate(resolve));
      if (options.failStart === true) throw new Error(`${name} could not reach its platform`);
      log.push(`started ${name}`);
    },
    async stop() {
      log.push(`stop ${name}`);
      await new Promise((resolve) => setImmediate(resolve));
      log.push(`stopped ${name}`);
    },
  };
}
