import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { SYNC_ASK_FIELDS, syncAskBodySchema } from '../core/ask-body-schema.js';
import type { JsonSchema } from '../core/types.js';
import type { AskBody, Asker, AskgateClient, InteractionRecord } from 'askgate-sdk';
import { askHumanOutputSchema, type AskToolOptions, runAskTool, toolError } from './ask-tool.js';

/**
 * Presets as MCP tools: an operator names presets (`ASKGATE_MCP_PRESETS` on `/mcp`, `askgate mcp --preset` on
 * stdio) and each becomes a tool `preset_<name>` whose input schema is the sync ask fields the preset leaves open.
 * A call asks through the preset door (`POST /api/presets/{name}/ask`), so what the preset fixes stays fixed: a
 * fixed field in the arguments is refused by name before anything is asked, and the door refuses it again should
 * the preset have changed since the tool was listed.
 *
 * Only a preset a tool call can wait on is offered: a sync question a person answers on a surface. A confirmation
 * preset (its page is for a party the agent must hand it to, which a blocked call cannot), and a preset that fixes a
 * verifier or an async park (`mode: "async"`, `to: "caller"`, `run`, ...), are left out, with the reason.
 */

export const PRESET_TOOL_PREFIX = 'preset_';

/** The preset as its read door shows it: the body's `ask` and whether it is a confirmation. */
export interface PresetBodyView {
  version: number;
  ask: Record<string, unknown>;
  confirmation?: unknown;
}

/** What the preset tools need from a gateway: read a preset, ask through it. */
export interface PresetDoor {
  /** The preset's current version; rejects with the gateway's refusal (`not_found` when it does not exist). */
  read(name: string): Promise<PresetBodyView>;
  /** Asks through the preset with the caller's fields (`POST /api/presets/{name}/ask`). */
  ask(name: string, fields: Record<string, unknown>, options?: { signal?: AbortSignal }): Promise<InteractionRecord>;
}

/** Fields that make an ask something other than a sync question a person answers where it is delivered. */
const NOT_A_TOOL: Readonly<Record<string, string>> = {
  verifier: 'it fixes a verifier, so only an outside system can answer it through its callback',
  mode: 'it parks a run (mode "async"), and a tool call waits for its answer',
  to: 'it asks the calling run (to "caller"), not a person',
  run: 'it parks a run, and a tool call waits for its answer',
  expiry_at: 'it parks a run (expiry_at), and a tool call waits for its answer',
  on_expiry: 'it parks a run (on_expiry), and a tool call waits for its answer',
  payload: 'it carries a payload for a calling run, not a question for a person',
};

/** Why `preset` cannot be a tool, or null when it can. */
export function notAToolReason(preset: PresetBodyView): string | null {
  if (preset.confirmation !== undefined)
    return 'it is a confirmation preset: its page is for a party the agent would have to hand it to, which a blocked tool call cannot';
  for (const [field, why] of Object.entries(NOT_A_TOOL)) {
    if (field === 'mode' && preset.ask['mode'] === 'sync') continue;
    if (field === 'to' && preset.ask['to'] === 'person') continue;
    if (field in preset.ask) return why;
  }
  return null;
}

/** The sync ask fields the preset leaves to the caller, as the JSON Schema a tool lists. */
export function presetToolJsonSchema(fixed: Readonly<Record<string, unknown>>): JsonSchema {
  const sync = syncAskBodySchema();
  const all = sync['properties'] as Record<string, JsonSchema>;
  const open = SYNC_ASK_FIELDS.filter((field) => !(field in fixed));
  return {
    type: 'object',
    properties: Object.fromEntries(open.map((field) => [field, all[field] as JsonSchema])),
    required: (sync['required'] as string[]).filter((field) => !(field in fixed)),
  };
}

/**
 * The tool's input: the open fields' schema; a fixed field, or any other field, is refused naming it and saying
 * why (the SDK turns the refusal into a tool error and nothing is asked). Listed with `additionalProperties: false`.
 */
export function presetToolInputSchema(
  name: string,
  fixed: Readonly<Record<string, unknown>>,
): z.ZodType<Record<string, unknown>> {
  const open = presetToolJsonSchema(fixed);
  const openFields = Object.keys(open['properties'] as Record<string, unknown>);
  // Unknown keys pass the structural check so that the refinement, not a bare "Unrecognized key", names them.
  const shape = (z.fromJSONSchema(open) as z.ZodObject).catchall(z.unknown());
  return shape
    .superRefine((args, ctx) => {
      for (const key of Object.keys(args)) {
        if (key in fixed)
          ctx.addIssue({
            code: 'custom',
            path: [key],
            message: `${key} is fixed by preset ${name}; drop it from the arguments`,
          });
        else if (!openFields.includes(key))
          ctx.addIssue({
            code: 'custom',
            path: [key],
            message: `${key} is not a field of this tool; use ${openFields.join(', ')}`,
          });
      }
    })
    .meta({ additionalProperties: false }) as unknown as z.ZodType<Record<string, unknown>>;
}

function describe(name: string, preset: PresetBodyView): string {
  const fixed = Object.keys(preset.ask);
  const question = typeof preset.ask['question'] === 'string' ? ` It asks: "${preset.ask['question']}".` : '';
  return [
    `Ask a person through the reviewed preset "${name}" and wait for their answer (the call blocks until they answer`,
    `or the timeout passes).${question}`,
    fixed.length === 0 ? 'The preset fixes no field.' : `The preset fixes ${fixed.join(', ')}; those cannot be sent.`,
    'The result is {answer, reply_to, params, answered_by, surface}. A timeout, a refusal or a question no surface',
    'could deliver is a tool error.',
  ].join(' ');
}

/** An asker whose asks go through the preset door; waiting and withdrawing are the gateway's usual ones. */
function presetAsker(base: Asker, door: PresetDoor, name: string): Asker {
  return {
    create: (body: AskBody, options = {}) => door.ask(name, body as unknown as Record<string, unknown>, options),
    result: (id, waitSeconds, options) => base.result(id, waitSeconds, options),
    cancel: (id) => base.cancel(id),
  };
}

/** One preset that could be offered, or why not. */
export type PresetToolPlan =
  | { name: string; offered: true; preset: PresetBodyView }
  | { name: string; offered: false; reason: string };

/** Reads each named preset and says whether it becomes a tool; a preset that cannot be read says why. */
export async function planPresetTools(door: PresetDoor, names: readonly string[]): Promise<PresetToolPlan[]> {
  return Promise.all(
    names.map(async (name): Promise<PresetToolPlan> => {
      let preset: PresetBodyView;
      try {
        preset = await door.read(name);
      } catch (error) {
        return { name, offered: false, reason: error instanceof Error ? error.message : String(error) };
      }
      const reason = notAToolReason(preset);
      return reason === null ? { name, offered: true, preset } : { name, offered: false, reason };
    }),
  );
}

/**
 * Registers a tool for each offered preset of `plans`. A call reads the preset again first: one that stopped being
 * a tool since it was listed (it became a confirmation, say) is refused without asking.
 */
export function registerPresetTools(
  server: McpServer,
  base: Asker,
  door: PresetDoor,
  plans: readonly PresetToolPlan[],
  options: AskToolOptions = {},
): void {
  for (const plan of plans) {
    if (!plan.offered) continue;
    const { name, preset } = plan;
    const asker = presetAsker(base, door, name);
    server.registerTool(
      `${PRESET_TOOL_PREFIX}${name}`,
      {
        title: `Ask through preset ${name}`,
        description: describe(name, preset),
        inputSchema: presetToolInputSchema(name, preset.ask),
        outputSchema: askHumanOutputSchema,
        annotations: { readOnlyHint: false, openWorldHint: true, idempotentHint: false },
      },
      async (args, extra): Promise<CallToolResult> => {
        const now = await door.read(name).catch((error: unknown) => error);
        if (now instanceof Error) return toolError(`refused: ${now.message}; nothing was asked.`);
        const reason = notAToolReason(now as PresetBodyView);
        if (reason !== null) return toolError(`refused: preset ${name} cannot be asked as a tool now: ${reason}.`);
        return runAskTool(asker, args, extra, options);
      },
    );
  }
}

/** The preset door over HTTP (`askgate mcp`): `GET /api/presets/{name}` (scope read), `POST .../ask` (write). */
export function clientPresetDoor(client: AskgateClient): PresetDoor {
  const path = (name: string): string => `/api/presets/${encodeURIComponent(name)}`;
  return {
    read: async (name) => {
      const view = await client.request<{
        version: number;
        body: { ask: Record<string, unknown>; confirmation?: unknown };
      }>('GET', path(name));
      const { ask, confirmation } = view.body;
      return { version: view.version, ask, ...(confirmation === undefined ? {} : { confirmation }) };
    },
    ask: (name, fields, options = {}) =>
      client.request<InteractionRecord>('POST', `${path(name)}/ask`, fields, {
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      }),
  };
}
