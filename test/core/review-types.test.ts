import { describe, expect, it } from 'vitest';
import type * as Sdk from 'askgate-sdk';
import type * as Forms from '../../forms/review-view.js';
import type * as Core from '../../src/core/types.js';

/**
 * The review's types live in three copies: the core's (src/core/types.ts), the browser pages' (forms/review-view.ts,
 * which the web bundle compiles without the core) and the SDK's wire types (packages/askgate-sdk, which imports
 * nothing of the gateway). This file holds them equal at compile time: `npx tsc -p tsconfig.test.json` fails on the
 * line of the pair that drifted. Equality is exact (each assignable to the other and no optional member, readonly
 * flag or union variant more on one side), which mutual assignability alone would let through.
 */

/** True when X and Y are the same type, optional members and readonly flags included. */
type Same<X, Y> = (<T>() => T extends X ? 1 : 2) extends <T>() => T extends Y ? 1 : 2 ? true : false;
/** Compiles only for `true`. */
type Holds<T extends true> = T;

type ReviewTypesAgree = [
  Holds<Same<Forms.ReviewDecision, Core.ReviewDecision>>,
  Holds<Same<Sdk.ReviewDecision, Core.ReviewDecision>>,
  Holds<Same<Forms.ReviewAction, Core.ReviewAction>>,
  Holds<Same<Sdk.ReviewAction, Core.ReviewAction>>,
  Holds<Same<Forms.ReviewAnswer, Core.ReviewAnswer>>,
  Holds<Same<Sdk.ReviewAnswer, Core.ReviewAnswer>>,
];

// Values across the copies, both ways: the plain assignability a reader expects, beside the exact check above.
const coreAnswer = (a: Forms.ReviewAnswer | Sdk.ReviewAnswer): Core.ReviewAnswer => a;
const formsAnswer = (a: Core.ReviewAnswer | Sdk.ReviewAnswer): Forms.ReviewAnswer => a;
const sdkAnswer = (a: Core.ReviewAnswer | Forms.ReviewAnswer): Sdk.ReviewAnswer => a;

describe('the review types of the core, the browser pages and the SDK', () => {
  it('agree (checked by the compiler: npx tsc -p tsconfig.test.json)', () => {
    const agree: ReviewTypesAgree = [true, true, true, true, true, true];
    expect(agree).toHaveLength(6);
    const reject: Core.ReviewAnswer = { decision: 'reject', message: 'not on a Friday' };
    expect(sdkAnswer(formsAnswer(coreAnswer(reject)))).toEqual({ decision: 'reject', message: 'not on a Friday' });
  });
});
