import { checkChannelFormSubset } from '../../forms/subset.js';
import type { AskContext, AskRequest } from './ask-request.js';
import type { ChannelCapabilities } from './channel-capabilities.js';
import { invalid } from './errors.js';
import type { JsonSchema } from './types.js';

/** A surface's recipient as the ask gave it, and the field that names it (`recipient`, `deliver[1].recipient`). */
export interface RecipientField {
  value: string | null;
  field: string;
}

/** The rules a channel must meet to take this ask, each refusal naming `field` (`channel`, `deliver[2].channel`). */
export function checkChannelFits(
  channel: string,
  field: string,
  ctx: AskContext,
  ask: Pick<AskRequest, 'answer_format' | 'schema' | 'verifier' | 'to' | 'decisions'>,
  target?: RecipientField,
): void {
  const { answer_format, schema, verifier, to } = ask;
  if (to === 'caller') throw invalid(field, 'an ask to the caller has no channel.');
  if (verifier !== null)
    throw invalid(
      'verifier',
      'verifier is forbidden with channel: a channel reply is not signed by the verifier and would be refused.',
    );
  const caps = ctx.channel(channel);
  if (caps === undefined) {
    const known = ctx.registeredChannels();
    throw invalid(
      field,
      `channel "${channel}" is not registered; ${known.length ? `registered: ${known.join(', ')}` : 'no channel is configured'}.`,
    );
  }
  const notRecipient = target === undefined ? null : (caps.recipientRefusal?.(target.value) ?? null);
  if (target !== undefined && notRecipient !== null) throw invalid(target.field, `${target.field} ${notRecipient}`);
  if (answer_format === 'review') {
    checkReviewFits(channel, field, caps, ask);
    return;
  }
  if (answer_format !== 'form') return;
  if (!caps.supportsFormDelivery)
    throw invalid(
      'answer_format',
      `channel "${channel}" cannot deliver forms; ask the form on the inbox or another channel.`,
    );
  checkFormSchemaFits(channel, caps, schema as JsonSchema);
}

/**
 * A review on a channel: the channel must show reviews, and an offered `edit` needs the schema its form is built
 * from, inside the channel-deliverable subset.
 */
function checkReviewFits(
  channel: string,
  field: string,
  caps: ChannelCapabilities,
  ask: Pick<AskRequest, 'schema' | 'decisions'>,
): void {
  if ((ask.decisions ?? []).includes('edit')) {
    if (ask.schema === null)
      throw invalid(
        'schema',
        'schema is required for "edit" on a channel: the edit form is built from it. Give the JSON Schema of ' +
          'action.args, or drop "edit" from decisions.',
      );
    checkFormSchemaFits(channel, caps, ask.schema);
  }
  if (caps.supportsReview !== true)
    throw invalid(
      field,
      `channel "${channel}" cannot show reviews yet; ask the review on the inbox or another channel.`,
    );
}

/** A form schema inside the channel-deliverable subset and the channel's own form limits. */
function checkFormSchemaFits(channel: string, caps: ChannelCapabilities, schema: JsonSchema): void {
  const subset = checkChannelFormSubset(schema);
  if (!subset.ok) {
    if (subset.property === '(root)')
      throw invalid('schema', `schema cannot be delivered on a channel: ${subset.reason}.`);
    throw invalid(
      `schema.properties.${subset.property}`,
      `schema property "${subset.property}" cannot be delivered on a channel: ${subset.reason}.`,
    );
  }
  const refusal = caps.formRefusal?.(schema) ?? null;
  if (refusal !== null)
    throw invalid(
      `schema.properties.${refusal.property}`,
      `schema property "${refusal.property}" cannot be delivered on channel "${channel}": ${refusal.reason}.`,
    );
}
