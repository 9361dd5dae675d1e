import { ChannelError } from '../contract.js';
import type { SharedPacer } from '../shared-pacing.js';
import { ERROR_PAIR_RATE, ERROR_THROUGHPUT, THROTTLE_BASE_DELAY_MS, THROTTLE_RETRIES } from './limits.js';

/**
 * A small typed client for the parts of Meta's Graph API askgate uses: sending messages, the Flows API and media
 * lookups. There is no official Node SDK for the Cloud API, so this is plain `fetch`. It keeps "Meta refused"
 * (`GraphError`, with Meta's numeric code) apart from "the network failed" (`ChannelError` kind `network`); neither
 * ever carries the access token.
 */

export interface GraphClientOptions {
  /** The Graph API root with its version, e.g. `https://graph.facebook.com/v21.0` (config: WHATSAPP_API_URL). */
  apiUrl: string;
  /** A system-user access token with whatsapp_business_messaging (and _management for Flows). */
  token: string;
  /** Wait before the first retry of a throttled send (130429, 131056). Default 1000 ms; tests pass 0. */
  throttleDelayMs?: number;
  /** Retries of a throttled send. Default 2. */
  throttleRetries?: number;
  /**
   * The number's send budget shared by every process (channels/shared-pacing.ts): each send reserves
   * its turn (the number's throughput, a gap per recipient), and a throttle refusal pushes the budget back for all.
   */
  pacer?: SharedPacer;
}

/** Meta refused a call: its `error.code` (e.g. 131047), its message and, when given, its details. */
export class GraphError extends ChannelError {
  constructor(
    readonly path: string,
    readonly code: number,
    readonly graphMessage: string,
    readonly details: string | null,
    readonly httpStatus: number,
  ) {
    super(
      'whatsapp',
      'refused',
      `WhatsApp refused ${path}: ${code} ${graphMessage}${details === null ? '' : ` (${details})`}`,
    );
    this.name = 'GraphError';
  }
}

export interface SentMessage {
  /** The `wamid.…` id; statuses and replies (`context.id`) refer to it. */
  messageId: string;
  /** The wa_id WhatsApp resolved the recipient to. */
  waId: string | null;
}

export interface MediaInfo {
  url: string | null;
  mimeType: string | null;
  sha256: string | null;
  fileSize: string | null;
}

export interface FlowSummary {
  id: string;
  name: string;
  status: string;
}

type Json = Record<string, unknown>;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const str = (v: unknown): string | null => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null);

export class GraphClient {
  private readonly root: string;

  constructor(private readonly options: GraphClientOptions) {
    this.root = options.apiUrl.replace(/\/+$/, '');
  }

  /** POST /{phone-number-id}/messages. Throttled sends (130429, 131056) are retried with backoff, then refused. */
  async sendMessage(phoneNumberId: string, message: Json): Promise<SentMessage> {
    const retries = this.options.throttleRetries ?? THROTTLE_RETRIES;
    const base = this.options.throttleDelayMs ?? THROTTLE_BASE_DELAY_MS;
    const pacer = this.options.pacer;
    const to = typeof message['to'] === 'string' ? message['to'] : null;
    for (let attempt = 0; ; attempt++) {
      if (pacer !== undefined) {
        const wait = await pacer.reserve(to);
        if (wait > 0) await sleep(wait);
        if (to !== null) await pacer.depart(to);
      }
      try {
        const body = await this.call('POST', `/${phoneNumberId}/messages`, {
          messaging_product: 'whatsapp',
          ...message,
        });
        if (pacer !== undefined && to !== null) await pacer.settled(to);
        const messages = Array.isArray(body['messages']) ? (body['messages'] as Json[]) : [];
        const id = str(messages[0]?.['id']);
        if (id === null)
          throw new ChannelError('whatsapp', 'network', 'the Graph API answered a send without a message id');
        const contacts = Array.isArray(body['contacts']) ? (body['contacts'] as Json[]) : [];
        return { messageId: id, waId: str(contacts[0]?.['wa_id']) };
      } catch (err) {
        const throttled = err instanceof GraphError && (err.code === ERROR_THROUGHPUT || err.code === ERROR_PAIR_RATE);
        if (!throttled || attempt >= retries) throw err;
        // Shared: the number (130429) or the pair (131056) waits for every process; the next reservation waits it out.
        if (pacer !== undefined)
          await pacer.pushBack(err.code === ERROR_PAIR_RATE ? to : null, Math.max(1, base * 2 ** attempt));
        else await sleep(base * 2 ** attempt);
      }
    }
  }

  /** GET /{waba-id}/flows, every page: how a restarted gateway finds the flows it published before. */
  async listFlows(businessAccountId: string): Promise<FlowSummary[]> {
    const flows: FlowSummary[] = [];
    let path: string | null = `/${businessAccountId}/flows?fields=id,name,status&limit=100`;
    while (path !== null) {
      const body = await this.call('GET', path);
      for (const f of Array.isArray(body['data']) ? (body['data'] as Json[]) : []) {
        const id = str(f['id']);
        if (id !== null) flows.push({ id, name: str(f['name']) ?? '', status: str(f['status']) ?? '' });
      }
      const after = str(
        (body['paging'] as Json | undefined)?.['cursors'] !== undefined
          ? ((body['paging'] as Json)['cursors'] as Json)['after']
          : null,
      );
      const next = (body['paging'] as Json | undefined)?.['next'];
      path =
        typeof next === 'string' && after !== null
          ? `/${businessAccountId}/flows?fields=id,name,status&limit=100&after=${encodeURIComponent(after)}`
          : null;
    }
    return flows;
  }

  /** POST /{waba-id}/flows: a draft flow. */
  async createFlow(businessAccountId: string, name: string): Promise<string> {
    const body = await this.call('POST', `/${businessAccountId}/flows`, { name, categories: ['OTHER'] });
    const id = str(body['id']);
    if (id === null) throw new ChannelError('whatsapp', 'network', 'the Graph API created a flow without an id');
    return id;
  }

  /** POST /{flow-id}/assets (multipart): uploads the Flow JSON; Meta's validation errors come back as a refusal. */
  async uploadFlowJson(flowId: string, flowJson: unknown): Promise<void> {
    const form = new FormData();
    form.set('name', 'flow.json');
    form.set('asset_type', 'FLOW_JSON');
    form.set('file', new Blob([JSON.stringify(flowJson)], { type: 'application/json' }), 'flow.json');
    const body = await this.call('POST', `/${flowId}/assets`, form);
    const errors = Array.isArray(body['validation_errors']) ? (body['validation_errors'] as Json[]) : [];
    if (errors.length > 0) {
      const first = errors[0] as Json;
      throw new GraphError(
        `/${flowId}/assets`,
        139001,
        `Flow JSON has ${errors.length} validation error(s): ${str(first['message']) ?? str(first['error']) ?? 'unknown'}`,
        null,
        200,
      );
    }
  }

  /** POST /{flow-id}/publish: a published flow can be sent to anyone and can no longer change. */
  async publishFlow(flowId: string): Promise<void> {
    await this.call('POST', `/${flowId}/publish`, {});
  }

  /** GET /{media-id}: where an inbound media file can be downloaded (the URL needs the token and lasts minutes). */
  async mediaInfo(mediaId: string): Promise<MediaInfo> {
    const body = await this.call('GET', `/${encodeURIComponent(mediaId)}`);
    return {
      url: str(body['url']),
      mimeType: str(body['mime_type']),
      sha256: str(body['sha256']),
      fileSize: str(body['file_size']),
    };
  }

  private async call(method: 'GET' | 'POST', path: string, body?: Json | FormData): Promise<Json> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.options.token}` };
    let payload: string | FormData | undefined;
    if (body instanceof FormData) payload = body;
    else if (body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(body);
    }
    const where = path.split('?')[0] as string;
    let res: Response;
    try {
      res = await fetch(`${this.root}${path}`, {
        method,
        headers,
        ...(payload === undefined ? {} : { body: payload }),
      });
    } catch (err) {
      throw new ChannelError(
        'whatsapp',
        'network',
        `could not reach the Graph API (${where}): ${err instanceof Error ? err.message : String(err)}`,
        null,
        { cause: err },
      );
    }
    let parsed: unknown;
    try {
      parsed = await res.json();
    } catch {
      throw new ChannelError(
        'whatsapp',
        'network',
        `the Graph API answered ${where} with HTTP ${res.status} and no JSON`,
      );
    }
    const json = parsed !== null && typeof parsed === 'object' ? (parsed as Json) : {};
    const error = json['error'] as Json | undefined;
    if (!res.ok || error !== undefined) {
      if (error === undefined)
        throw new ChannelError('whatsapp', 'network', `the Graph API answered ${where} with HTTP ${res.status}`);
      const details = str((error['error_data'] as Json | undefined)?.['details']);
      throw new GraphError(
        where,
        Number(error['code'] ?? res.status),
        str(error['message']) ?? 'unknown error',
        details,
        res.status,
      );
    }
    return json;
  }
}
