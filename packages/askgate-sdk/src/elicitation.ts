import { randomUUID } from 'node:crypto';
import type { ElicitRequestParams, ElicitResult } from './wire/elicitation.js';
import type { AskgateClient } from './client.js';
import { AskgateHttpError } from './errors.js';
import type { AskBody, InteractionRecord, JsonSchema } from './types.js';
import { type AskEnd, askAndWait } from './ask-and-wait.js';

/**
 * An MCP elicitation (`elicitation/create`) answered by a person through askgate. Form mode becomes a `form` ask
 * on the requested schema; URL mode an `external` ask whose question shows the URL and which the person completes
 * by confirming on its page. Beside it goes a one-button `Decline` question on the same surface, so the person can
 * say no on every surface; whichever is answered first decides, and the other is withdrawn. The result:
 * accept → `{action: "accept", content, _meta: {"askgate/reply_to": <reply_to or null>}}`, Decline → `decline`,
 * a timeout or a withdrawn question → `cancel`. The answer's `params` are not carried.
 */

/** The `_meta` key of an accepted result that carries the message the person's reply quoted (null in the inbox). */
export const REPLY_TO_META = 'askgate/reply_to';

/** The one choice of the decline question. */
export const DECLINE = 'Decline';

/** Where, to whom and how long: the ask fields an elicitation takes from its caller rather than from the server. */
export interface ElicitationRoute {
  /** The channel to ask on; the web inbox when absent. */
  channel?: string;
  recipient?: string;
  /** Several surfaces at once (instead of `channel`/`recipient`): the first answer on any of them settles it. */
  deliver?: ReadonlyArray<{ channel: string; recipient: string }>;
  /**
   * Who may answer (token identities, `<channel>:<user id>`): the form and the Decline. A URL-mode question is
   * completed by the outside page, so only its Decline is guarded.
   */
  approvers?: readonly string[];
  /** Seconds the person has; the gateway default when absent. */
  timeout?: number;
}

/** The ask fields of a route, for a question a person answers (`guarded`: approvers apply). */
function whereOf(
  route: ElicitationRoute,
  guarded: boolean,
): {
  channel?: string;
  recipient?: string;
  deliver?: Array<{ channel: string; recipient: string }>;
  approvers?: string[];
  timeout?: number;
} {
  return {
    ...(route.channel === undefined ? {} : { channel: route.channel }),
    ...(route.recipient === undefined ? {} : { recipient: route.recipient }),
    ...(route.deliver === undefined ? {} : { deliver: route.deliver.map((s) => ({ ...s })) }),
    ...(route.approvers === undefined || !guarded ? {} : { approvers: [...route.approvers] }),
    ...(route.timeout === undefined ? {} : { timeout: route.timeout }),
  };
}

export interface ElicitThroughAskOptions extends ElicitationRoute {
  /** Aborted when whoever waits for the result went away: both questions are withdrawn and this rejects. */
  signal?: AbortSignal;
}

/** An elicitation that cannot be asked: the MCP error to answer it with (`-32602`, naming the property). */
export class ElicitationRefusedError extends Error {
  /** The JSON-RPC error code: invalid params. */
  readonly code = -32602;
  /** The requested schema's property at fault, when one is. */
  readonly property: string | undefined;

  constructor(message: string, property?: string) {
    super(message);
    this.name = 'ElicitationRefusedError';
    this.property = property;
  }
}

type Schema = Record<string, unknown>;

const isRecord = (v: unknown): v is Schema => v !== null && typeof v === 'object' && !Array.isArray(v);
const stringList = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');

/** The consts of a titled enum (`oneOf`/`anyOf` of `{const, title}`), or null when it is not one. */
function titledConsts(list: unknown): string[] | null {
  if (!Array.isArray(list) || list.length === 0) return null;
  const consts = list.map((o) => (isRecord(o) && typeof o['const'] === 'string' ? o['const'] : null));
  return consts.every((c): c is string => c !== null) ? consts : null;
}

/**
 * One property of an MCP requested schema as a field askgate can ask: the MCP primitives map one to one except
 * titled enums, whose `const` values become a string `enum` (the titles are not shown on chat channels), and a
 * legacy `enumNames`, which is dropped. Anything else is refused, naming the property.
 */
function mapProperty(name: string, prop: unknown): JsonSchema {
  const refuse = (why: string): never => {
    throw new ElicitationRefusedError(`requestedSchema property "${name}" ${why}; nothing was asked.`, name);
  };
  if (!isRecord(prop)) return refuse('must be a schema object');
  const { enumNames: _names, oneOf, ...rest } = prop;
  switch (prop['type']) {
    case 'boolean':
    case 'number':
    case 'integer':
      return { ...rest };
    case 'string': {
      if (oneOf !== undefined) {
        const consts = titledConsts(oneOf);
        if (consts === null) return refuse('has a "oneOf" that is not a list of {const, title}');
        return { ...rest, enum: consts };
      }
      if (rest['enum'] !== undefined && !stringList(rest['enum'])) return refuse('has an "enum" that is not strings');
      return { ...rest };
    }
    case 'array': {
      const items = prop['items'];
      if (!isRecord(items)) return refuse('is an array without "items"');
      const consts = stringList(items['enum']) ? items['enum'] : titledConsts(items['anyOf']);
      if (consts === null) return refuse('is an array whose items are not a string enum');
      return { ...rest, items: { type: 'string', enum: consts } };
    }
    default:
      return refuse(
        `has type ${JSON.stringify(prop['type'])}; an elicitation takes string, number, integer, boolean and enums`,
      );
  }
}

/** The `form` ask schema of a requested schema (see `mapProperty`); refuses what does not map, naming it. */
export function formSchemaOf(requested: unknown): JsonSchema {
  if (!isRecord(requested) || requested['type'] !== 'object' || !isRecord(requested['properties']))
    throw new ElicitationRefusedError('requestedSchema must be {"type": "object", "properties": {...}}.');
  const properties: Record<string, JsonSchema> = {};
  for (const [name, prop] of Object.entries(requested['properties'])) properties[name] = mapProperty(name, prop);
  const schema: JsonSchema = { type: 'object', properties };
  if (requested['required'] !== undefined) schema['required'] = requested['required'];
  return schema;
}

/** The primary ask of an elicitation: the form, or the external question that shows the URL. */
function primaryAsk(params: ElicitRequestParams, route: ElicitationRoute): AskBody {
  if (params.mode === 'url') {
    const question = `${params.message}\n\nOpen ${params.url} and complete it there, then confirm here.`;
    return { question, answer_format: 'external', ...whereOf(route, false) } as AskBody;
  }
  return {
    question: params.message,
    answer_format: 'form',
    schema: formSchemaOf(params.requestedSchema),
    ...whereOf(route, true),
  } as AskBody;
}

/** A gateway refusal of the form, as the MCP error naming the requested schema's property. */
function refusalOf(error: AskgateHttpError): ElicitationRefusedError {
  const property = /^schema\.properties\.(.+)$/.exec(error.field ?? '')?.[1];
  if (property !== undefined)
    return new ElicitationRefusedError(`requestedSchema property "${property}": ${error.message}`, property);
  return new ElicitationRefusedError(`the gateway refused the elicitation: ${error.message}`);
}

function accepted(record: InteractionRecord, mode: 'form' | 'url'): ElicitResult {
  const replyTo = record.result?.reply_to ?? null;
  const meta = { [REPLY_TO_META]: replyTo };
  if (mode === 'url') return { action: 'accept', _meta: meta };
  return { action: 'accept', content: record.result?.answer as ElicitResult['content'], _meta: meta };
}

/**
 * Answers an MCP elicitation through ask: for programs that hold an MCP client themselves (set it as the client's
 * `elicitation/create` handler) and for `askgate mcp-proxy`. Rejects with `ElicitationRefusedError` when the
 * request cannot be asked (nothing is asked then), and with the gateway's error when it is unreachable.
 */
export async function elicitThroughAsk(
  client: AskgateClient,
  params: ElicitRequestParams,
  options: ElicitThroughAskOptions = {},
): Promise<ElicitResult> {
  const mode = params.mode === 'url' ? 'url' : 'form';
  const primary = primaryAsk(params, options);
  const local = new AbortController();
  const abort = (): void => local.abort(options.signal?.reason);
  if (options.signal?.aborted === true) abort();
  else options.signal?.addEventListener('abort', abort, { once: true });
  const group = `elicitation-${randomUUID()}`;
  let created: (() => void) | null = null;
  const primaryCreated = new Promise<void>((resolve) => {
    created = resolve;
  });
  const running: Array<Promise<unknown>> = [];
  try {
    // The decline question is asked once the primary exists, so a refused form asks nothing at all.
    const primaryEnd = askAndWait(client, { ...primary, group_id: group } as AskBody, {
      signal: local.signal,
      onCreated: () => created?.(),
    }).catch((error: unknown) => {
      if (error instanceof AskgateHttpError && error.status === 400) throw refusalOf(error);
      throw error;
    });
    running.push(primaryEnd);
    const early = await Promise.race([primaryEnd, primaryCreated.then(() => null)]);
    if (early !== null) return settle(early, 'primary', mode);
    const decline: AskBody = {
      question: `Or decline: ${params.message}`.slice(0, 4096),
      answer_format: 'select',
      choices: [DECLINE],
      group_id: group,
      ...whereOf(options, true),
    };
    const declineEnd = askAndWait(client, decline, { signal: local.signal });
    running.push(declineEnd);
    const first = await Promise.race([
      primaryEnd.then((end) => ({ which: 'primary' as const, end })),
      declineEnd.then((end) => ({ which: 'decline' as const, end })),
    ]);
    return settle(first.end, first.which, mode);
  } finally {
    options.signal?.removeEventListener('abort', abort);
    // Whatever decided it, the other question is no longer wanted: withdraw it (its late answer is told 410), and
    // return only once every question of this elicitation is closed.
    if (!local.signal.aborted) local.abort(new Error('the elicitation was settled'));
    await Promise.allSettled(running);
  }
}

function settle(end: AskEnd, which: 'primary' | 'decline', mode: 'form' | 'url'): ElicitResult {
  if (end.kind !== 'answered') return { action: 'cancel' };
  return which === 'decline' ? { action: 'decline' } : accepted(end.record, mode);
}
