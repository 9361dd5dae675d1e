import type { InteractionRecord, JsonSchema } from '../core/types.js';

/**
 * Every question the callback page answers through a rendered form is described by one object schema: a form's
 * (or a pinned external's) own schema, or a one-field schema (`answer`) for text and select. The decoder and the
 * re-render use the same schema, so the page posts what the server reads back.
 */
export function formSchemaOf(record: Pick<InteractionRecord, 'answer_format' | 'schema' | 'choices'>): JsonSchema {
  switch (record.answer_format) {
    case 'text':
      return {
        type: 'object',
        required: ['answer'],
        properties: { answer: { type: 'string', title: 'Your answer', minLength: 1, maxLength: 16_384 } },
      };
    case 'select':
      return {
        type: 'object',
        required: ['answer'],
        properties: { answer: { type: 'string', title: 'Your choice', enum: record.choices ?? [] } },
      };
    case 'confirm':
      return {
        type: 'object',
        required: ['answer'],
        properties: { answer: { type: 'boolean', title: 'Your answer' } },
      };
    case 'form':
    case 'external':
      return record.schema ?? { type: 'object', properties: {} };
  }
}

/** True when the format's answer is the `answer` field of the one-field schema rather than the object itself. */
export function isWrapped(format: InteractionRecord['answer_format']): boolean {
  return format === 'text' || format === 'select' || format === 'confirm';
}
