import { AskgateError, invalid } from '../core/errors.js';
import type { AskResponse, InteractionService } from '../core/interaction-service.js';
import type { Identity, JsonSchema } from '../core/types.js';
import type { Logger } from '../observability/logger.js';
import type { PresetVersion, Store } from '../core/store-port.js';
import type { ConfirmationProvider } from './providers/types.js';
import { ProviderNotConfigured } from './providers/types.js';

/**
 * Presets: a reviewed ask an operator writes once (scope `admin`) and callers ask through, passing only the fields
 * the preset leaves open. A confirmation preset also fixes, from its one `reference` literal, the verifier binding
 * and the const-pinned answer schema, so a caller (an agent) can neither drop the binding nor point the pin at
 * another request. Every write is a new version, kept with who wrote it and when.
 */

/** What a confirmation preset names: the provider, the pinned reference and the party-facing parts. */
export interface ConfirmationSpec {
  provider: string;
  reference: string;
  return_url: string;
  line_items: unknown[];
}

/** A preset body as written with `PUT /api/presets/{name}`. */
export interface PresetBody {
  ask: Record<string, unknown>;
  confirmation?: ConfirmationSpec;
}

/** The fields a confirmation preset derives itself; a preset's `ask` may not set them either. */
const DERIVED = ['answer_format', 'verifier', 'schema'] as const;
/** A preset's name (the `{name}` of its doors). */
export const PRESET_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;
const NAME = PRESET_NAME;
/** The limits `parsePresetBody` applies to a confirmation, shared with the published schema below. */
const CONFIRMATION_LIMITS = { referenceMax: 200, lineItemsMax: 100 } as const;

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The answer schema a confirmation is pinned to: only `confirmed` for exactly this reference. */
export function confirmationSchema(reference: string): JsonSchema {
  return {
    type: 'object',
    properties: { decision: { const: 'confirmed' }, reference: { const: reference } },
    required: ['decision', 'reference'],
    additionalProperties: false,
  };
}

/** Every ask field the preset fixes, with its value: its own `ask`, plus what a confirmation derives. */
export function fixedFields(body: PresetBody): Record<string, unknown> {
  if (body.confirmation === undefined) return { ...body.ask };
  return {
    ...body.ask,
    answer_format: 'external',
    verifier: { name: 'shared_secret' },
    schema: confirmationSchema(body.confirmation.reference),
  };
}

export function checkPresetName(name: string): void {
  if (!NAME.test(name))
    throw invalid('name', 'a preset name is 1..100 letters, digits, ".", "_" or "-", starting with a letter or digit.');
}

function returnUrl(raw: unknown): string {
  const field = 'confirmation.return_url';
  if (typeof raw !== 'string') throw invalid(field, `${field} is required: the https:// page the party lands on.`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid(field, `${field} is not a URL; give an absolute https:// URL.`);
  }
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback))
    throw invalid(field, `${field} must be https:// (http:// only on a loopback host).`);
  return raw;
}

/**
 * The `PUT /api/presets/{name}` body as JSON Schema, from the rules of `parsePresetBody` below: `ask` holds the ask
 * fields the preset fixes (`askFields`: the ask body's properties; none required, as callers add the rest), and a
 * confirmation derives `answer_format`, `verifier` and `schema` itself, which the parser refuses in its `ask`.
 */
export function presetBodySchema(askFields: Record<string, JsonSchema>): JsonSchema {
  return {
    type: 'object',
    additionalProperties: false,
    required: ['ask'],
    properties: {
      ask: { type: 'object', additionalProperties: false, properties: askFields },
      confirmation: {
        type: 'object',
        additionalProperties: false,
        required: ['provider', 'reference', 'return_url', 'line_items'],
        properties: {
          provider: { type: 'string', description: 'A configured provider: "stripe_checkout".' },
          reference: { type: 'string', minLength: 1, maxLength: CONFIRMATION_LIMITS.referenceMax },
          return_url: {
            type: 'string',
            format: 'uri',
            description: 'The https:// page the party lands on (http:// only on a loopback host).',
          },
          line_items: {
            type: 'array',
            minItems: 1,
            maxItems: CONFIRMATION_LIMITS.lineItemsMax,
            items: { type: 'object' },
            description: 'As the provider takes them (Stripe Checkout line_items).',
          },
        },
      },
    },
  };
}

/** Checks a `PUT` body; `providers` are the names a confirmation may use. */
export function parsePresetBody(raw: unknown, providers: readonly string[]): PresetBody {
  if (!isObject(raw)) throw invalid('body', 'send {"ask": {<ask fields>}, "confirmation"?: {...}}.');
  const extra = Object.keys(raw).find((k) => k !== 'ask' && k !== 'confirmation');
  if (extra !== undefined)
    throw invalid(extra, `${extra} is not a preset field; a preset has "ask" and "confirmation".`);
  if (!isObject(raw['ask'])) throw invalid('ask', 'ask is required: an object of the ask fields this preset fixes.');
  const ask = raw['ask'];
  if ('preset' in ask) throw invalid('ask.preset', 'a preset cannot name another preset.');
  if (raw['confirmation'] === undefined) return { ask };
  const c = raw['confirmation'];
  if (!isObject(c))
    throw invalid('confirmation', 'confirmation must be an object: provider, reference, return_url, line_items.');
  const unknown = Object.keys(c).find((k) => !['provider', 'reference', 'return_url', 'line_items'].includes(k));
  if (unknown !== undefined)
    throw invalid(`confirmation.${unknown}`, `confirmation.${unknown} is not a confirmation field.`);
  if (typeof c['provider'] !== 'string' || !providers.includes(c['provider']))
    throw invalid(
      'confirmation.provider',
      `confirmation.provider must be one of ${providers.map((p) => `"${p}"`).join(', ')}.`,
    );
  const reference = c['reference'];
  if (typeof reference !== 'string' || reference.length < 1 || reference.length > CONFIRMATION_LIMITS.referenceMax)
    throw invalid(
      'confirmation.reference',
      'confirmation.reference is required: the literal (1..200 characters) the answer is pinned to.',
    );
  const items = c['line_items'];
  const most = CONFIRMATION_LIMITS.lineItemsMax;
  if (!Array.isArray(items) || items.length < 1 || items.length > most || !items.every(isObject))
    throw invalid(
      'confirmation.line_items',
      'confirmation.line_items must be 1..100 objects, as the provider takes them.',
    );
  // The format a confirmation derives may be said again; only a conflicting one (or any verifier or schema) is refused.
  const derived = DERIVED.find((k) => k in ask && !(k === 'answer_format' && ask[k] === 'external'));
  if (derived !== undefined)
    throw invalid(`ask.${derived}`, `ask.${derived} is derived by a confirmation preset from its reference; drop it.`);
  return {
    ask,
    confirmation: { provider: c['provider'], reference, return_url: returnUrl(c['return_url']), line_items: items },
  };
}

/** A preset as `GET` shows it: the current body and every version. */
export interface PresetView {
  name: string;
  version: number;
  body: PresetBody;
  written_by: string;
  written_at: string;
  versions: PresetVersion[];
}

/** The response to an ask through a preset: a confirmation's carries `confirmation_url` and no `callback_url`. */
export type PresetAskResponse = AskResponse & {
  confirmation_url?: string;
  confirmation?: { provider: string; id: string };
};

export interface PresetServiceDeps {
  store: Store;
  service: InteractionService;
  providers: ReadonlyMap<string, ConfirmationProvider>;
  logger: Logger;
  now?: () => number;
}

export class PresetService {
  constructor(private readonly deps: PresetServiceDeps) {}

  /** Writes a new version; resolves with its number. */
  async put(name: string, raw: unknown, identity: Identity): Promise<{ name: string; version: number }> {
    checkPresetName(name);
    const body = parsePresetBody(raw, [...this.deps.providers.keys()]);
    // Checked by the ask rules now, so a preset that could never ask is refused here, not at its first ask.
    this.deps.service.validatePresetAsk(fixedFields(body));
    const at = new Date((this.deps.now ?? Date.now)()).toISOString();
    const version = await this.deps.store.appendPreset(name, {
      body: body as unknown as Record<string, unknown>,
      written_by: identity.name,
      written_at: at,
    });
    this.deps.logger.info({ preset: name, version, by: identity.name }, 'preset version written');
    return { name, version };
  }

  async get(name: string): Promise<PresetView> {
    checkPresetName(name);
    const versions = await this.deps.store.presetVersions(name);
    const current = versions.at(-1);
    if (current === undefined)
      throw new AskgateError('not_found', `preset ${name} does not exist; write it with PUT first.`);
    return {
      name,
      version: current.version,
      body: current.body as unknown as PresetBody,
      written_by: current.written_by,
      written_at: current.written_at,
      versions,
    };
  }

  /**
   * Asks through the preset's current version: the caller's fields plus the fixed ones. A caller passing a fixed
   * field is refused, naming it. A confirmation opens the provider's resource after the question exists (its
   * callback URL goes into the resource) and cancels the question when the provider refuses.
   */
  async ask(name: string, raw: unknown, identity: Identity): Promise<PresetAskResponse> {
    const preset = await this.get(name);
    if (raw !== undefined && raw !== null && !isObject(raw))
      throw invalid('body', 'send the ask fields the preset leaves open as a JSON object.');
    const fields = (raw ?? {}) as Record<string, unknown>;
    const fixed = fixedFields(preset.body);
    const taken = Object.keys(fields).find((k) => k in fixed);
    if (taken !== undefined)
      throw new AskgateError('fixed_by_preset', `${taken} is fixed by preset ${name}; drop it from the request.`, {
        field: taken,
      });
    const confirmation = preset.body.confirmation;
    const provider = confirmation === undefined ? undefined : this.deps.providers.get(confirmation.provider);
    if (confirmation !== undefined) {
      // Refuse before a question exists that no party could ever act on.
      const why =
        provider === undefined
          ? `provider ${confirmation.provider} is not known on this gateway.`
          : provider.unavailable();
      if (why !== null) throw new AskgateError('not_configured', why);
    }
    const record = await this.deps.service.ask({ ...fields, ...fixed }, identity);
    if (confirmation === undefined) return record;
    const { callback_url: callbackUrl, ...shown } = record;
    try {
      if (provider === undefined || callbackUrl === undefined)
        throw new ProviderNotConfigured(`provider ${confirmation.provider} is not available on this gateway.`);
      const opened = await provider.open({
        callbackUrl,
        reference: confirmation.reference,
        returnUrl: confirmation.return_url,
        lineItems: confirmation.line_items,
      });
      return { ...shown, confirmation_url: opened.url, confirmation: { provider: provider.name, id: opened.id } };
    } catch (err) {
      // The party could never act on it: withdraw the question rather than leave a caller blocked on nothing.
      await this.deps.service.cancel(record.id, identity).catch(() => undefined);
      const why = err instanceof Error ? err.message : String(err);
      if (err instanceof ProviderNotConfigured) throw new AskgateError('not_configured', why);
      this.deps.logger.warn({ preset: name, interaction: record.id, err: why }, 'confirmation provider refused');
      throw new AskgateError(
        'provider_failed',
        `${confirmation.provider} could not open the confirmation (${why}); the question was cancelled.`,
      );
    }
  }
}
