import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { screenIds, validateFlowJson } from './whatsapp-flow-json.js';
import { PHONE_NUMBER_ID, WABA_ID } from './whatsapp-webhooks.js';
import { connectionFaults, type ConnectionFaults } from './connection-faults.js';

/**
 * A loopback Graph API that askgate's WhatsApp client talks to (`WHATSAPP_API_URL`). It answers with the Cloud API's
 * shapes — `{messaging_product, contacts, messages: [{id: "wamid…"}]}` and `{error: {message, type, code,
 * error_data: {details}, fbtrace_id}}` — and enforces the interactive limits askgate must respect (3 buttons of 20
 * characters, 10 list rows of 24, a 1024-character interactive body, 4096 for text). Recipients can be put outside
 * the 24-hour window (131047), and sends throttled (130429) or pair-rate limited (131056). The Flows API (create,
 * asset upload, publish, list) and media lookups are served too; an uploaded Flow JSON is validated as WhatsApp does
 * (whatsapp-flow-json.ts: version, screens, layout, component types and their required properties and limits,
 * data_api_version, dynamic references), and a flow message must name a published Flow, one of its screens, and a
 * call to action of at most 20 characters.
 * Interactive limits: https://developers.facebook.com/docs/whatsapp/cloud-api/messages/interactive-reply-buttons-messages
 * (1..3 buttons, title ≤ 20, id ≤ 256, body ≤ 1024, header and footer text ≤ 60),
 * https://developers.facebook.com/docs/whatsapp/cloud-api/messages/interactive-list-messages (≤ 10 rows over ≤ 10
 * sections, row title ≤ 24, description ≤ 72, id ≤ 200, button ≤ 20, section title ≤ 24) and
 * https://developers.facebook.com/docs/whatsapp/flows/guides/sendingaflow (flow_message_version "3", flow_cta,
 * flow_action navigate or data_exchange, flow_action_payload.screen for navigate).
 */

export const GRAPH_TOKEN = 'EAAG-test-token-for-the-fake';

export interface SentMessage {
  id: string;
  to: string;
  payload: Record<string, unknown>;
}

export interface FakeFlow {
  id: string;
  name: string;
  status: 'DRAFT' | 'PUBLISHED';
  json: Record<string, unknown> | null;
}

export interface FakeGraph {
  /** Connection resets to play (test/fakes/connection-faults.ts). */
  readonly faults: ConnectionFaults;
  readonly apiUrl: string;
  readonly sent: SentMessage[];
  readonly flows: Map<string, FakeFlow>;
  readonly calls: Array<{ method: string; path: string }>;
  sentTo(waId: string): SentMessage[];
  /** Sends the fake's own `limits` refused (130429, 131056). */
  readonly throttled: number;
  /** The recipient has not written in 24 hours: only templates go through (131047). */
  outsideWindow(waId: string): void;
  /** The next `times` sends fail with `code` (130429 throughput, 131056 pair rate, or any other). */
  failNext(code: number, times?: number): void;
  /** A media object a webhook may name. */
  addMedia(id: string, info: { mime_type: string; sha256: string; file_size: number }): void;
  close(): Promise<void>;
}

const ERRORS: Record<number, { message: string; details: string; status: number }> = {
  131047: {
    message: 'Re-engagement message',
    details:
      'Message failed to send because more than 24 hours have passed since the customer last replied to this number.',
    status: 400,
  },
  130429: { message: 'Rate limit hit', details: 'Cloud API message throughput has been reached.', status: 400 },
  131056: {
    message: '(Business Account, Consumer Account) pair rate limit hit',
    details:
      'Too many messages sent from the sender phone number to the same recipient phone number in a short period of time.',
    status: 400,
  },
  131009: { message: 'Parameter value is not valid', details: '', status: 400 },
  132000: { message: 'Number of parameters does not match the expected number of params', details: '', status: 400 },
  132001: { message: 'Template name does not exist in the translation', details: '', status: 404 },
  132018: { message: "There's an issue with the parameters in your template.", details: '', status: 400 },
  100: { message: 'Invalid parameter', details: '', status: 400 },
};

class Refusal extends Error {
  constructor(
    readonly code: number,
    readonly details: string,
  ) {
    super(details);
  }
}

const len = (s: unknown): number => (typeof s === 'string' ? [...s].length : 0);

/** An approved message template: its language and how many body parameters ({{1}}…) it takes. */
export interface FakeTemplate {
  language: string;
  bodyParameters: number;
}

/** The templates approved on the fake's account unless a test names others. */
export const DEFAULT_TEMPLATES: Record<string, FakeTemplate> = {
  askgate_question: { language: 'en_US', bodyParameters: 1 },
};

function checkTemplate(p: Record<string, unknown>, templates: Record<string, FakeTemplate>): void {
  const t = p['template'] as Record<string, unknown> | undefined;
  const name = t?.['name'];
  const language = (t?.['language'] as Record<string, unknown> | undefined)?.['code'];
  const approved = typeof name === 'string' ? templates[name] : undefined;
  if (approved === undefined || approved.language !== language)
    throw new Refusal(132001, `template name (${String(name)}) does not exist in ${String(language)}`);
  const components = (t?.['components'] ?? []) as Array<{ type: string; parameters?: Array<Record<string, unknown>> }>;
  const body = components.find((c) => c.type === 'body')?.parameters ?? [];
  if (body.length !== approved.bodyParameters)
    throw new Refusal(
      132000,
      `body: number of localizable_params (${body.length}) does not match the expected number of params (${approved.bodyParameters})`,
    );
  for (const param of body) {
    const text = param['text'];
    if (param['type'] !== 'text' || typeof text !== 'string' || text === '')
      throw new Refusal(131009, 'a body parameter must be a non-empty text');
    // The Cloud API refuses these in a parameter at send time.
    if (/[\n\t]| {5,}/.test(text))
      throw new Refusal(132018, 'Param text cannot have new-line/tab characters or more than 4 consecutive spaces');
    if (len(text) > 1024) throw new Refusal(131009, 'a body parameter is too long');
  }
}

/** Ids must be unique within one message, and every title non-empty. */
function checkUnique(ids: string[], what: string): void {
  if (new Set(ids).size !== ids.length) throw new Refusal(131009, `${what} ids must be unique`);
}

function checkMessage(
  p: Record<string, unknown>,
  templates: Record<string, FakeTemplate>,
  publishedFlow: (id: string) => Set<string> | null,
): void {
  const type = p['type'];
  if (type === 'text') {
    const body = (p['text'] as Record<string, unknown> | undefined)?.['body'];
    if (typeof body !== 'string' || body === '') throw new Refusal(100, 'text.body is required');
    if (len(body) > 4096) throw new Refusal(100, 'text.body is too long (max 4096)');
    return;
  }
  if (type === 'template') {
    checkTemplate(p, templates);
    return;
  }
  if (type !== 'interactive') throw new Refusal(100, `unsupported type ${String(type)}`);
  const i = p['interactive'] as Record<string, unknown>;
  const body = (i['body'] as Record<string, unknown> | undefined)?.['text'];
  if (typeof body !== 'string' || body === '' || len(body) > 1024)
    throw new Refusal(131009, 'interactive.body.text must be 1..1024 characters');
  const action = i['action'] as Record<string, unknown>;
  // Header (text) and footer: "Maximum 60 characters" each.
  const header = i['header'] as Record<string, unknown> | undefined;
  if (header?.['type'] === 'text' && (len(header['text']) === 0 || len(header['text']) > 60))
    throw new Refusal(131009, 'interactive.header.text must be 1..60 characters');
  const footer = (i['footer'] as Record<string, unknown> | undefined)?.['text'];
  if (footer !== undefined && (len(footer) === 0 || len(footer) > 60))
    throw new Refusal(131009, 'interactive.footer.text must be 1..60 characters');
  if (i['type'] === 'button') {
    const buttons = action['buttons'] as Array<{ reply: { id: string; title: string } }>;
    if (buttons.length < 1 || buttons.length > 3) throw new Refusal(131009, 'action.buttons must have 1..3 buttons');
    for (const b of buttons) {
      if (len(b.reply.title) > 20 || len(b.reply.id) > 256)
        throw new Refusal(131009, 'button title is too long (max 20)');
      if (len(b.reply.title) === 0 || len(b.reply.id) === 0)
        throw new Refusal(131009, 'a button needs a title and an id');
    }
    checkUnique(
      buttons.map((b) => b.reply.id),
      'button',
    );
    checkUnique(
      buttons.map((b) => b.reply.title),
      'button title',
    );
  } else if (i['type'] === 'list') {
    const sections = action['sections'] as Array<{ title?: string; rows: Array<Record<string, string>> }>;
    if (!Array.isArray(sections) || sections.length < 1 || sections.length > 10)
      throw new Refusal(131009, 'a list has 1..10 sections');
    // More than one section: each needs a title (max 24).
    if (sections.length > 1 && sections.some((s) => len(s.title) === 0 || len(s.title) > 24))
      throw new Refusal(131009, 'each section of a multi-section list needs a title of 1..24 characters');
    const rows = sections.flatMap((s) => s.rows);
    if (rows.length < 1 || rows.length > 10) throw new Refusal(131009, 'a list has 1..10 rows');
    for (const r of rows) {
      if (len(r['title']) > 24 || len(r['description']) > 72 || len(r['id']) > 200)
        throw new Refusal(131009, 'row title is too long (max 24)');
      if (len(r['title']) === 0 || len(r['id']) === 0) throw new Refusal(131009, 'a row needs a title and an id');
    }
    checkUnique(
      rows.map((r) => r['id'] as string),
      'row',
    );
    if (len(action['button']) > 20) throw new Refusal(131009, 'list button is too long (max 20)');
  } else if (i['type'] === 'flow') {
    const params = action['parameters'] as Record<string, unknown>;
    if (action['name'] !== 'flow') throw new Refusal(100, 'action.name must be "flow"');
    if (params['flow_message_version'] !== '3') throw new Refusal(100, 'flow_message_version must be "3"');
    if (typeof params['flow_token'] !== 'string' || typeof params['flow_id'] !== 'string')
      throw new Refusal(100, 'flow_token and flow_id are required');
    if (len(params['flow_cta']) === 0 || len(params['flow_cta']) > 20)
      throw new Refusal(131009, 'flow_cta must be 1..20 characters');
    const screens = publishedFlow(params['flow_id']);
    if (screens === null) throw new Refusal(131009, `flow ${params['flow_id']} is not published`);
    const flowAction = params['flow_action'] ?? 'navigate';
    if (flowAction !== 'navigate' && flowAction !== 'data_exchange')
      throw new Refusal(100, 'flow_action must be navigate or data_exchange');
    if (flowAction === 'navigate') {
      const screen = (params['flow_action_payload'] as Record<string, unknown> | undefined)?.['screen'];
      if (typeof screen !== 'string' || !screens.has(screen))
        throw new Refusal(131009, `flow_action_payload.screen ${String(screen)} is not a screen of the flow`);
    }
  } else throw new Refusal(100, `unsupported interactive type ${String(i['type'])}`);
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export interface FakeGraphOptions {
  /** The business phone number the token may send from; /<other id>/messages does not exist. */
  phoneNumberId?: string;
  /** The WhatsApp Business Account that owns the Flows; /<other id>/flows does not exist. */
  businessAccountId?: string;
  templates?: Record<string, FakeTemplate>;
  /**
   * Throughput limits, enforced when given: a send to a recipient closer than `perRecipientGapMs` to the last one
   * accepted for it is refused 131056 (pair rate), and one over `perWindow` accepted sends in any `windowMs` 130429.
   */
  limits?: { perRecipientGapMs: number; perWindow: number; windowMs: number };
}

export async function startFakeGraph(options: FakeGraphOptions = {}): Promise<FakeGraph> {
  const phoneNumberId = options.phoneNumberId ?? PHONE_NUMBER_ID;
  const businessAccountId = options.businessAccountId ?? WABA_ID;
  const templates = options.templates ?? DEFAULT_TEMPLATES;
  const sent: SentMessage[] = [];
  const flows = new Map<string, FakeFlow>();
  const calls: Array<{ method: string; path: string }> = [];
  const outside = new Set<string>();
  const failures: number[] = [];
  /** With `limits`: when each recipient's last send was accepted, the accepted sends' times, the refusals. */
  const lastTo = new Map<string, number>();
  const accepted: number[] = [];
  let throttled = 0;
  const media = new Map<string, { mime_type: string; sha256: string; file_size: number }>();
  let seq = 0;

  const reply = (res: ServerResponse, status: number, body: unknown): void => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const refuse = (res: ServerResponse, code: number, details?: string): void => {
    const e = ERRORS[code] ?? { message: 'Error', details: '', status: 400 };
    reply(res, e.status, {
      error: {
        message: e.message,
        type: 'OAuthException',
        code,
        error_data: { messaging_product: 'whatsapp', details: details ?? e.details },
        fbtrace_id: `trace${++seq}`,
      },
    });
  };

  const faults = connectionFaults();
  const server = createServer((req, res) => {
    if (faults.intercept(req)) return;
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const path = url.pathname.replace(/^\/v\d+\.\d+/, '');
      calls.push({ method: req.method ?? 'GET', path });
      if (req.headers.authorization !== `Bearer ${GRAPH_TOKEN}`) {
        reply(res, 401, {
          error: {
            message: 'Invalid OAuth access token - Cannot parse access token',
            type: 'OAuthException',
            code: 190,
            fbtrace_id: 'x',
          },
        });
        return;
      }
      const raw = await readBody(req);
      const parts = path.split('/').filter((p) => p !== '');
      const noSuchObject = (): void =>
        reply(res, 400, {
          error: {
            message:
              `Unsupported ${req.method} request. Object with ID '${parts[0]}' does not exist, cannot be loaded ` +
              'due to missing permissions, or does not support this operation',
            type: 'GraphMethodException',
            code: 100,
            error_subcode: 33,
            fbtrace_id: 'x',
          },
        });
      if (parts[1] === 'messages' && parts[0] !== phoneNumberId) return noSuchObject();
      if (parts[1] === 'flows' && parts[0] !== businessAccountId) return noSuchObject();
      if (req.method === 'POST' && parts[1] === 'messages') {
        const p = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
        const to = String(p['to']);
        if (p['messaging_product'] !== 'whatsapp') return refuse(res, 100, 'messaging_product must be "whatsapp"');
        const failure = failures.shift();
        if (failure !== undefined) return refuse(res, failure);
        if (outside.has(to) && p['type'] !== 'template') return refuse(res, 131047);
        const limits = options.limits;
        if (limits !== undefined) {
          const now = Date.now();
          if (now - (lastTo.get(to) ?? Number.NEGATIVE_INFINITY) < limits.perRecipientGapMs) {
            throttled++;
            return refuse(res, 131056);
          }
          while (accepted.length > 0 && (accepted[0] as number) <= now - limits.windowMs) accepted.shift();
          if (accepted.length >= limits.perWindow) {
            throttled++;
            return refuse(res, 130429);
          }
        }
        try {
          checkMessage(p, templates, (id) => {
            const flow = flows.get(id);
            return flow?.status === 'PUBLISHED' ? screenIds(flow.json) : null;
          });
        } catch (err) {
          if (err instanceof Refusal) return refuse(res, err.code, err.details);
          throw err;
        }
        const id = `wamid.HBgL${String(++seq).padStart(8, '0')}`;
        if (limits !== undefined) {
          lastTo.set(to, Date.now());
          accepted.push(Date.now());
        }
        sent.push({ id, to, payload: p });
        return reply(res, 200, {
          messaging_product: 'whatsapp',
          contacts: [{ input: to, wa_id: to }],
          messages: [{ id, message_status: 'accepted' }],
        });
      }
      if (parts[1] === 'flows' && req.method === 'GET') {
        return reply(res, 200, {
          data: [...flows.values()].map((f) => ({ id: f.id, name: f.name, status: f.status })),
          paging: { cursors: { before: 'b', after: 'a' } },
        });
      }
      if (parts[1] === 'flows' && req.method === 'POST') {
        const p = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
        if (typeof p['name'] !== 'string' || !Array.isArray(p['categories']))
          return refuse(res, 100, 'name and categories are required');
        const id = String(900000 + ++seq);
        flows.set(id, { id, name: p['name'], status: 'DRAFT', json: null });
        return reply(res, 200, { id });
      }
      const flow = flows.get(parts[0] ?? '');
      if (flow !== undefined && parts[1] === 'assets' && req.method === 'POST') {
        const form = await new Response(new Uint8Array(raw), {
          headers: { 'content-type': req.headers['content-type'] ?? '' },
        }).formData();
        const file = form.get('file');
        if (form.get('asset_type') !== 'FLOW_JSON' || !(file instanceof Blob))
          return refuse(res, 100, 'asset_type FLOW_JSON and file are required');
        if (flow.status === 'PUBLISHED') return refuse(res, 139001, 'a published flow cannot be changed');
        let json: Record<string, unknown> | null = null;
        try {
          json = JSON.parse(await file.text()) as Record<string, unknown>;
        } catch {
          return refuse(res, 100, 'the Flow JSON file is not JSON');
        }
        const errors = validateFlowJson(json);
        // A Flow JSON with validation errors is kept as a draft that cannot be published.
        flow.json = errors.length === 0 ? json : null;
        return reply(res, 200, { success: true, validation_errors: errors });
      }
      if (flow !== undefined && parts[1] === 'publish' && req.method === 'POST') {
        if (flow.json === null) return refuse(res, 139002, 'upload a Flow JSON before publishing');
        flow.status = 'PUBLISHED';
        return reply(res, 200, { success: true });
      }
      const m = media.get(parts[0] ?? '');
      if (m !== undefined && req.method === 'GET' && parts.length === 1) {
        return reply(res, 200, {
          messaging_product: 'whatsapp',
          url: `https://lookaside.fbsbx.com/whatsapp_business/attachments/?mid=${parts[0]}`,
          ...m,
          id: parts[0],
        });
      }
      reply(res, 400, {
        error: {
          message: `Unsupported ${req.method} request. Object with ID '${parts[0]}' does not exist`,
          type: 'GraphMethodException',
          code: 100,
          fbtrace_id: 'x',
        },
      });
    })().catch((err: unknown) => reply(res, 500, { error: { message: String(err), code: 1 } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    faults,
    apiUrl: `http://127.0.0.1:${port}/v21.0`,
    sent,
    flows,
    calls,
    sentTo: (waId) => sent.filter((s) => s.to === waId),
    outsideWindow: (waId) => outside.add(waId),
    get throttled() {
      return throttled;
    },
    failNext(code, times = 1) {
      for (let i = 0; i < times; i++) failures.push(code);
    },
    addMedia: (id, info) => media.set(id, info),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
