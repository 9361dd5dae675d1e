import type { ReplyTo } from './interactions.js';

/**
 * The MCP elicitation shapes `elicitThroughAsk` reads and answers (the Model Context Protocol's `elicitation/create`
 * request params and its result), written out here so the SDK needs no MCP package: an MCP SDK's own params and
 * result types fit these.
 */

/** `elicitation/create` params: form mode (`requestedSchema`) or URL mode (`url`). */
export interface ElicitRequestParams {
  /** `form` when absent. */
  mode?: 'form' | 'url';
  message: string;
  /** Form mode: `{"type": "object", "properties": {...}, "required"?: [...]}` of primitive properties. */
  requestedSchema?: unknown;
  /** URL mode: the page the person completes. */
  url?: string;
  [member: string]: unknown;
}

// Type aliases, not interfaces: an MCP SDK's result type is an open object (an index signature), which a type
// alias fits and an interface does not.

/** The `_meta` of an accepted result: the message the person's reply quoted (null in the inbox). */
export type ElicitResultMeta = {
  'askgate/reply_to': ReplyTo | null;
};

/** The elicitation's result. */
export type ElicitResult = {
  action: 'accept' | 'decline' | 'cancel';
  /** Form mode, accepted: the answered form. */
  content?: Record<string, string | number | boolean | string[]>;
  _meta?: ElicitResultMeta;
};
