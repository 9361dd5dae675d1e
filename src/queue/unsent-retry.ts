/**
 * Error codes that mean the connection to the platform was never made: refused, no route, the name did not resolve,
 * the connect attempt timed out (undici's). A send that failed with one of them cannot have reached the platform.
 * A connection reset or a timeout waiting for the answer is not among them: the request may have been taken.
 */
const NEVER_CONNECTED = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/**
 * Where SDKs keep the error underneath their own: `cause` (the standard, and ChannelError), `error` (grammY's
 * HttpError), `original` (Slack's Web API client), `errors` (Node's AggregateError when every address refused).
 */
const UNDERNEATH = ['cause', 'error', 'original'] as const;

/** Whether a failed send certainly never reached the platform (see NEVER_CONNECTED), looking through its causes. */
export function neverReachedPlatform(err: unknown): boolean {
  const seen = new Set<object>();
  let layer: unknown[] = [err];
  // A few layers deep: a ChannelError around an SDK's error around the socket's.
  for (let depth = 0; depth < 6 && layer.length > 0; depth++) {
    const next: unknown[] = [];
    for (const e of layer) {
      if (typeof e !== 'object' || e === null || seen.has(e)) continue;
      seen.add(e);
      const fields = e as Record<string, unknown>;
      if (typeof fields['code'] === 'string' && NEVER_CONNECTED.has(fields['code'])) return true;
      for (const key of UNDERNEATH) next.push(fields[key]);
      if (Array.isArray(fields['errors'])) next.push(...fields['errors']);
    }
    layer = next;
  }
  return false;
}

/**
 * The waits before each new try of a send that never reached the platform: four more tries over about 15 s, which
 * rides out a restarting proxy or a DNS blip without holding a worker slot for long.
 */
export const UNSENT_RETRY_WAITS_MS: readonly number[] = [1_000, 2_000, 4_000, 8_000];

/**
 * Runs `send`, and runs it again after each wait of `waits` while it fails without having reached the platform
 * (`neverReachedPlatform`); any other failure, or the last, is thrown as it is. Returns the result and how many
 * tries it took. Safe for a send that must not be repeated: only a send nobody received is tried again.
 */
export async function sendUntilReached<T>(
  send: () => Promise<T>,
  onRetry: (err: unknown, tries: number) => void,
  waits: readonly number[] = UNSENT_RETRY_WAITS_MS,
): Promise<{ result: T; tries: number }> {
  for (let tries = 1; ; tries++) {
    try {
      return { result: await send(), tries };
    } catch (err) {
      const wait = waits[tries - 1];
      if (wait === undefined || !neverReachedPlatform(err)) throw err;
      onRetry(err, tries);
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}
