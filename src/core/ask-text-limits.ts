/**
 * The ask body's string limits, shared by the rules (ask-request.ts, run-fields.ts) and the published schema
 * (`ask-body-schema.ts`). A module of their own so the field rules can read them without importing the parser.
 */
export const ASK_TEXT_LIMITS = { question: 4096, groupId: 200, recipient: 200, channel: 100, runId: 200 } as const;
