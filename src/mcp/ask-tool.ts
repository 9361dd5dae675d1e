import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { checkSyncAskBody, syncAskBodySchema } from '../core/ask-body-schema.js';
import { AskgateError } from '../core/errors.js';
import { type AskBody, type Asker, AskgateHttpError, askAndWait } from 'askgate-sdk';

/**
 * The `ask_human` tool: one tool call asks a person through the gateway and returns their answer. Its input schema
 * is the ask body's published schema (`core/ask-body-schema.ts`) and every call is checked by the ask door's own
 * rules before anything is asked, so what the tool lists and what the gateway takes are one thing.
 */

export const ASK_HUMAN = 'ask_human';

const DESCRIPTION = [
  'Ask a person a question and wait for their answer (the call blocks until they answer or the timeout passes).',
  'Use it when you need a decision, an approval, a fact or input only a human can give.',
  'Pick answer_format by the answer you need: "confirm" for yes/no (returns a boolean), "select" with `choices`',
  'for one of a few options (returns the chosen string), "text" for a free reply (a string), "form" with a JSON',
  '`schema` of type object for several typed fields at once (returns an object), "external" when the person acts on',
  'an outside page, "review" with `action` {name, args, description?} to have a person approve, edit (optionally',
  'against `schema`, the JSON Schema of the args), reject or respond to a tool call you propose (returns',
  '{"decision": ..., "args"?, "message"?}). Without `channel` the question goes to the web inbox; with `channel`',
  'and `recipient` it is sent as a chat message (Telegram, Slack, WhatsApp, SMS). The result is {answer, reply_to, params, answered_by,',
  'surface}. A timeout, a refusal of the question, or a question no surface could deliver is a tool error.',
].join(' ');

/** The tool's input: the published schema, checked by the ask rules themselves (the refusal names the field). */
export function askHumanInputSchema(): z.ZodType<Record<string, unknown>> {
  // fromJSONSchema yields a structural ZodType; the refinement below is what holds it to the ask rules.
  const shape = z.fromJSONSchema(syncAskBodySchema()) as z.ZodType<Record<string, unknown>>;
  return shape.superRefine((body, ctx) => {
    try {
      checkSyncAskBody(body);
    } catch (error) {
      if (!(error instanceof AskgateError)) throw error;
      ctx.addIssue({ code: 'custom', path: error.field === undefined ? [] : [error.field], message: error.message });
    }
  });
}

const ReplyToSchema = z.object({ message_id: z.string(), status: z.string(), text: z.string() }).passthrough();

/** The tool's `structuredContent`: the answer and where it came from. */
export const askHumanOutputSchema = z.object({
  answer: z
    .unknown()
    .describe('The answer: a string (text, select), a boolean (confirm), an object (form, external, review).'),
  reply_to: ReplyToSchema.nullable().describe('The message the answering reply quoted on a chat channel, else null.'),
  params: z.record(z.string(), z.string()).nullable().describe("The channel's own entries about the reply, or null."),
  answered_by: z.string().describe('Who answered: a token identity or "<channel>:<user id>".'),
  surface: z.string().describe('Where it was answered: inbox, callback, or the channel name.'),
});

export interface AskToolOptions {
  /** The longest wait between two progress notifications, in seconds. Default 10. */
  progressSeconds?: number;
  /** Each call's promise is kept here while it runs, so a closing process can wait for its withdrawals. */
  inFlight?: Set<Promise<unknown>>;
}

export function toolError(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

/** Registers `ask_human` on `server`, asking through `client` (a gateway client, or the gateway's own service). */
export function registerAskHuman(server: McpServer, client: Asker, options: AskToolOptions = {}): void {
  server.registerTool(
    ASK_HUMAN,
    {
      title: 'Ask a human',
      description: DESCRIPTION,
      inputSchema: askHumanInputSchema(),
      outputSchema: askHumanOutputSchema,
      annotations: { readOnlyHint: false, openWorldHint: true, idempotentHint: false },
    },
    (args, extra): Promise<CallToolResult> => runAskTool(client, args, extra, options),
  );
}

/** What the SDK hands a tool call beside its arguments: the abort signal, `_meta`, the notification sender. */
export type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/**
 * One asking tool call (`ask_human`, or a preset's tool with its own asker): asks, waits with progress, and returns
 * the structured result or a tool error; kept in `options.inFlight` while it runs.
 */
export function runAskTool(
  client: Asker,
  args: Record<string, unknown>,
  extra: ToolExtra,
  options: AskToolOptions,
): Promise<CallToolResult> {
  const call = askHuman(client, args, extra, options);
  options.inFlight?.add(call);
  return call.finally(() => options.inFlight?.delete(call));
}

async function askHuman(
  client: Asker,
  args: Record<string, unknown>,
  extra: ToolExtra,
  options: AskToolOptions,
): Promise<CallToolResult> {
  const progressToken = extra._meta?.progressToken;
  try {
    // The refinement ran the ask rules on args, so they are an ask body.
    const end = await askAndWait(client, args as unknown as AskBody, {
      signal: extra.signal,
      ...(options.progressSeconds === undefined ? {} : { sliceSeconds: options.progressSeconds }),
      onProgress: async (waited, total, record) => {
        if (progressToken === undefined) return;
        await extra.sendNotification({
          method: 'notifications/progress',
          params: {
            progressToken,
            progress: waited,
            total,
            message: `waiting for a person to answer interaction ${record.id}`,
          },
        });
      },
    });
    const { record } = end;
    if (end.kind === 'answered' && record.result !== null) {
      const { answer, reply_to, params, answered_by, surface } = record.result;
      const structured = { answer, reply_to, params, answered_by, surface };
      return { structuredContent: structured, content: [{ type: 'text', text: JSON.stringify(structured) }] };
    }
    if (end.kind === 'expired')
      return toolError(
        `timeout: nobody answered interaction ${record.id} before its deadline ${record.deadline_at}; ` +
          'ask again with a longer timeout or another channel.',
      );
    if (end.kind === 'undeliverable')
      return toolError(
        `undeliverable: no surface could deliver interaction ${record.id}; check the channel and recipient.`,
      );
    return toolError(`cancelled: interaction ${record.id} was cancelled before anyone answered.`);
  } catch (error) {
    const refusal = refusalOf(error);
    if (refusal === null) throw error;
    return toolError(refusal);
  }
}

/** The words of a refused or undelivered ask (over HTTP or in process), or null for any other failure. */
function refusalOf(error: unknown): string | null {
  let undelivered: boolean;
  let field: string | undefined;
  if (error instanceof AskgateHttpError) {
    undelivered = error.status === 502;
    field = error.field;
  } else if (error instanceof AskgateError) {
    undelivered = error.code === 'channel_delivery_failed';
    field = error.field;
  } else return null;
  const at = field === undefined ? '' : ` (field ${field})`;
  return `${undelivered ? 'undeliverable' : 'refused'}: ${error.message}${at}; nothing was asked.`;
}
