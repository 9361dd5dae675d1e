import { type AskContext, parseAskRequest } from './ask-request.js';
import { AskgateError } from './errors.js';

/**
 * A preset fixes some of an ask's fields and leaves the rest to each caller. Written, it is checked by the very
 * rules an ask runs (`parseAskRequest`), so a preset that could never ask is refused at `PUT` with the 400 an ask
 * would get, naming the field under `ask.` — not at the first ask through it. The rules take a whole ask, so the
 * fields a preset leaves open are filled with neutral stand-ins first (the probe); a refusal about a stand-in says
 * nothing about the preset (a caller may send another value), so only refusals of the preset's own fields count.
 */

/** The preset's fields plus stand-ins for what a caller would still send; the preset's own fields win. */
export function presetProbe(fixed: Readonly<Record<string, unknown>>, nowMs: number): Record<string, unknown> {
  const format =
    fixed['answer_format'] ??
    (fixed['verifier'] !== undefined
      ? 'external'
      : fixed['choices'] !== undefined
        ? 'select'
        : fixed['schema'] !== undefined
          ? 'form'
          : 'text');
  const probe: Record<string, unknown> = { question: 'A preset check', answer_format: format };
  if (format === 'select') probe['choices'] = ['one', 'two'];
  if (format === 'form') probe['schema'] = { type: 'object', properties: { note: { type: 'string' } } };
  if (fixed['mode'] === 'async' || fixed['to'] === 'caller') {
    probe['expiry_at'] = new Date(nowMs + 3_600_000).toISOString();
    probe['run'] = { run_id: 'preset-check', resume: { handler: 'preset-check' } };
  }
  if (fixed['channel'] !== undefined && fixed['recipient'] === undefined) probe['recipient'] = 'preset-check';
  return { ...probe, ...fixed };
}

/** The refusal as the preset's: its field under `ask.`; null when it is about a stand-in, not the preset. */
export function presetRefusal(err: unknown, fixed: Readonly<Record<string, unknown>>): AskgateError | null {
  if (!(err instanceof AskgateError) || err.field === undefined) return null;
  const top = err.field.split(/[.[]/)[0] ?? '';
  if (!(top in fixed)) return null;
  return new AskgateError(err.code, err.message, {
    field: `ask.${err.field}`,
    ...(err.reason === undefined ? {} : { reason: err.reason }),
  });
}

/**
 * Runs the ask rules on the preset's probe: a refusal of one of the preset's own fields is thrown as the preset's
 * (under `ask.`); a refusal of a stand-in is not the preset's concern. Whether this process can run a fixed verifier
 * is asked at each ask, as for any ask: a confirmation preset's derived binding may be written before the bridge
 * secret is set.
 */
export function checkPresetAsk(fixed: Readonly<Record<string, unknown>>, ctx: AskContext): void {
  try {
    parseAskRequest(presetProbe(fixed, ctx.nowMs), ctx);
  } catch (err) {
    const refusal = presetRefusal(err, fixed);
    if (refusal !== null) throw refusal;
  }
}
