import express, { Router } from 'express';
import { verifyDiscord } from './verify.js';
import { MalformedInteraction, parseInteraction, type DiscordEvent } from './webhook.js';

/** Where Discord posts interactions (the application's Interactions Endpoint URL). */
export const INTERACTIONS_PATH = '/channels/discord/interactions';

export interface DiscordRouterOptions {
  publicKey: string;
  nowSeconds?: (() => number) | undefined;
  /** The channel's dispatch: one verified, parsed interaction → the response body. */
  handle(event: DiscordEvent): Promise<Record<string, unknown>>;
}

/**
 * The thin HTTP glue: raw body → signature (401 before a byte is parsed) → parse (400) → dispatch → the interaction
 * response as JSON. Everything it calls is framework-free, so moving the channel onto another HTTP layer touches
 * this file only.
 */
export function discordRouter(options: DiscordRouterOptions): Router {
  const router = Router();
  router.post(INTERACTIONS_PATH, express.raw({ type: () => true, limit: '1mb' }), async (req, res, next) => {
    const rawBody = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const verdict = verifyDiscord({
      publicKey: options.publicKey,
      rawBody,
      headers: req.headers,
      now: options.nowSeconds?.() ?? Math.floor(Date.now() / 1000),
    });
    if (!verdict.ok) {
      res
        .status(401)
        .json({ error: 'unauthorized', message: `the Discord interaction signature was refused: ${verdict.reason}.` });
      return;
    }
    let event: DiscordEvent;
    try {
      event = parseInteraction(rawBody);
    } catch (err) {
      if (!(err instanceof MalformedInteraction)) throw err;
      res
        .status(400)
        .json({ error: 'invalid_request', message: `not a Discord interaction: ${err.message}.`, field: 'body' });
      return;
    }
    try {
      res.status(200).json(await options.handle(event));
    } catch (err) {
      // A store outage and the like: the gateway's error handler answers it like any other door's failure.
      next(err);
    }
  });
  return router;
}
