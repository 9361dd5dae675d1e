import type { InteractionRecord, JsonSchema } from './wire/interactions.js';
import { AskgateSdkError } from './errors.js';
import type { AskAnswer } from './types.js';

/** Options of `askExternal`. */
export interface AskExternalOptions {
  /** 1..4096 characters: what the person (or the outside system) is asked to do. Required. */
  question: string;
  /**
   * The URL a person visits (a payment link, a document to sign…), made from the minted callback URL: either a
   * link template — a URL with `{callback_url}` in it, replaced by the callback URL encoded as a query component,
   * e.g. `https://pay.example/checkout?return={callback_url}` — or a function that builds the outside resource and
   * returns the URL. The callback URL is a bearer capability: hand it to the outside system only. Required. When the
   * function throws, the ask is cancelled and the error is rethrown.
   */
  build: string | ((callbackUrl: string) => string | Promise<string>);
  /** Called once with the URL `build` returned, before the call blocks: show it to the person. Default: none. */
  present?: (urlToVisit: string) => void | Promise<void>;
  /** Optional pin: the delivered payload must match it (pin reference and decision with `const`). */
  schema?: JsonSchema;
  /** Authenticates the callback, e.g. `{ name: "stripe", secret_env: "STRIPE_WEBHOOK_SECRET" }`. Closed over here. */
  verifier?: { readonly name: string; readonly [option: string]: unknown };
  /** Seconds > 0; default the gateway's `INTERACTIONS_DEFAULT_TIMEOUT_SECONDS`. */
  timeout?: number;
  group_id?: string;
  signal?: AbortSignal;
}

/** What `askExternal` returns: the delivered payload (and the record), once the outside action completes. */
export interface ExternalAnswer<T = unknown> extends AskAnswer<T> {
  /** The URL `build` returned. */
  url: string;
  interaction: InteractionRecord;
}

/** The slice of the client `askExternal` drives; kept narrow so this module stays a pure composition. */
export interface ExternalAskDriver {
  create(body: Record<string, unknown>, options: { signal?: AbortSignal }): Promise<InteractionRecord>;
  wait(id: string, options: { signal?: AbortSignal }): Promise<AskAnswer>;
  cancel(id: string): Promise<unknown>;
}

/**
 * The external flow of the guide's `ask_external`: mint the callback URL (an `answer_format: "external"` ask),
 * build the outside resource around it, then block until the outside system POSTs the (verified, schema-checked)
 * payload to the callback door or a person completes its confirm page.
 */
export async function askExternal<T = unknown>(
  driver: ExternalAskDriver,
  options: AskExternalOptions,
): Promise<ExternalAnswer<T>> {
  const build = linkBuilder(options.build);
  const body: Record<string, unknown> = { question: options.question, answer_format: 'external' };
  if (options.schema !== undefined) body['schema'] = options.schema;
  if (options.verifier !== undefined) body['verifier'] = options.verifier;
  if (options.timeout !== undefined) body['timeout'] = options.timeout;
  if (options.group_id !== undefined) body['group_id'] = options.group_id;
  const signal = options.signal === undefined ? {} : { signal: options.signal };
  const record = await driver.create(body, signal);
  const callbackUrl = record.callback_url;
  if (callbackUrl === undefined) {
    await driver.cancel(record.id).catch(() => undefined);
    throw new AskgateSdkError('the gateway minted no callback_url for the external ask; is this an askgate gateway?');
  }
  let url: string;
  try {
    url = await build(callbackUrl);
    await options.present?.(url);
  } catch (error) {
    // Nobody can act on a resource that was never built: withdraw the question instead of waiting out its timeout.
    await driver.cancel(record.id).catch(() => undefined);
    throw error;
  }
  const answer = (await driver.wait(record.id, signal)) as AskAnswer<T>;
  // The record above was read before the answer; callers that want the answered record can `get` it.
  return { ...answer, url, interaction: record };
}

const PLACEHOLDER = '{callback_url}';

/** `build` as a function: a template's placeholder filled in, or the caller's own function. Checked before asking. */
function linkBuilder(
  build: AskExternalOptions['build'] | undefined,
): (callbackUrl: string) => string | Promise<string> {
  if (typeof build === 'function') return build;
  if (typeof build !== 'string')
    throw new AskgateSdkError(
      'build is required: a link template with {callback_url}, or (callbackUrl) => the URL to visit.',
    );
  if (!build.includes(PLACEHOLDER))
    throw new AskgateSdkError(
      `build "${build}" has no ${PLACEHOLDER}: the outside system could never answer; put it in the link.`,
    );
  return (callbackUrl) => build.split(PLACEHOLDER).join(encodeURIComponent(callbackUrl));
}
