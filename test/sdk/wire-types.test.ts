import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { InteractionRecord, WireComponents } from 'askgate-sdk';
// @ts-expect-error: a plain .mjs tool without declarations; its one export is typed below.
import * as generator from '../../tools/generate-sdk-types.mjs';

/**
 * packages/askgate-sdk/src/wire/openapi.ts is generated from the OpenAPI document by `npm run generate:sdk-types` (openapi-typescript).
 * Stale check: regenerating from the document the built gateway serves gives the checked-in file byte for byte, so
 * a change to the document without regenerating fails here. The SDK's record type and the generated one agree both
 * ways at compile time (tsc -p tsconfig.test.json), so a field the document gains or loses shows up as a type error.
 */

type Generated = WireComponents['schemas']['Interaction'];
const toGenerated = (r: InteractionRecord): Generated => r;
const fromGenerated = (r: Generated): InteractionRecord => r;

describe('the generated wire types', () => {
  it('are what the current document generates (npm run generate:sdk-types)', async () => {
    const generatedTypes = (generator as { generatedTypes: () => Promise<string> }).generatedTypes;
    const fresh = await generatedTypes();
    const checkedIn = readFileSync('packages/askgate-sdk/src/wire/openapi.ts', 'utf8');
    expect(
      fresh === checkedIn,
      'packages/askgate-sdk/src/wire/openapi.ts is stale: run npm run generate:sdk-types',
    ).toBe(true);
    expect(typeof toGenerated).toBe('function');
    expect(typeof fromGenerated).toBe('function');
  });
});
