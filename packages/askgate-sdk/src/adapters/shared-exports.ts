/**
 * What every framework adapter (`askgate-sdk/langchain`, `/ai-sdk`, `/openai-agents`) exports besides its own
 * functions: the review types its options and results are written in, and the words of an expired review. One list,
 * so the three subpaths cannot drift apart; each adapter re-exports it with `export *`. It imports no framework, so
 * an adapter's optional peer stays a type-only import of that adapter alone.
 */

export type {
  ParkedReviews,
  ReviewAction,
  ReviewAnswer,
  ReviewContinuation,
  ReviewFields,
  ReviewParkOptions,
  ReviewWaitOptions,
} from './review.js';
export { EXPIRED_MESSAGE } from './review.js';
