/**
 * The one error a channel's render throws when a question would break a platform limit (a text too long, too many
 * buttons). Every channel's limits.ts re-exports it, and every plugin turns it into a `ChannelError` of kind
 * `invalid`, so the asker hears which limit and why before any call is made.
 */
export class RenderLimitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RenderLimitError';
  }
}

/** Throws RenderLimitError when `actual` exceeds `limit`; the message names the thing, the platform and the limit. */
export function checkLimit(platform: string, what: string, actual: number, limit: number, limitName?: string): void {
  if (actual > limit)
    throw new RenderLimitError(
      `${what} is ${actual}; ${platform} allows ${limit}${limitName === undefined ? '' : ` (${limitName})`}.`,
    );
}
