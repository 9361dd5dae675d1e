import express, { Router, type Request, type Response } from 'express';
import type { App, Receiver, ReceiverEvent } from '@slack/bolt';
import { ACK_FALLBACK_MS } from './limits.js';
import {
  MalformedRequest,
  parseEventsBody,
  parseInteractionBody,
  retryNum,
  retryReason,
  verifySlackRequest,
} from './webhook.js';
import type { Logger } from '../../src/observability/logger.js';

export const SLACK_EVENTS_PATH = '/channels/slack/events';
export const SLACK_INTERACTIONS_PATH = '/channels/slack/interactions';

export interface SlackReceiverOptions {
  signingSecret: string;
  /** Now in Unix seconds (the signature's staleness rule). Default the clock. */
  nowSeconds?: () => number;
  logger?: Logger;
}

/** True the first time a key is seen, across processes on one store (the ChannelCore's de-duplication). */
export type FirstSeen = (key: string) => Promise<boolean>;

/**
 * Bolt's receiver, as askgate's own express routes: each request is verified (pure function, before a byte is
 * parsed), de-duplicated, then handed to Bolt's `processEvent`, whose listeners call `ack`. The HTTP response is
 * sent at the first `ack`, so acknowledging Slack is separate from the work that follows it; a listener that has
 * not acknowledged after ACK_FALLBACK_MS is acknowledged for it, so Slack's 3-second deadline is always met.
 */
export class SlackReceiver implements Receiver {
  private app: App | null = null;

  constructor(private readonly options: SlackReceiverOptions) {}

  init(app: App): void {
    this.app = app;
  }

  // The routes are mounted on askgate's express app; there is no server of the receiver's own to start or stop.
  start(): Promise<void> {
    return Promise.resolve();
  }

  stop(): Promise<void> {
    return Promise.resolve();
  }

  router(firstSeen: FirstSeen): Router {
    const router = Router();
    const raw = express.raw({ type: () => true, limit: '1mb' });
    router.post(SLACK_EVENTS_PATH, raw, async (req, res) => {
      const rawBody = this.verified(req, res);
      if (rawBody === null) return;
      let envelope: ReturnType<typeof parseEventsBody>;
      try {
        envelope = parseEventsBody(rawBody);
      } catch (err) {
        this.malformed(err, res);
        return;
      }
      // The URL verification handshake: Slack checks the Request URL by asking it to echo the challenge.
      if (envelope.kind === 'challenge') {
        res.status(200).json({ challenge: envelope.challenge });
        return;
      }
      if (envelope.kind === 'ignored') {
        res.status(200).end();
        return;
      }
      // Slack retries (X-Slack-Retry-Num) an event it thinks was not acknowledged; event_id is the same each time.
      if (!(await firstSeen(`slack:event:${envelope.eventId}`))) {
        res.status(200).end();
        return;
      }
      this.dispatch(envelope.body, req, res);
    });
    router.post(SLACK_INTERACTIONS_PATH, raw, (req, res) => {
      const rawBody = this.verified(req, res);
      if (rawBody === null) return;
      let payload: ReturnType<typeof parseInteractionBody>;
      try {
        payload = parseInteractionBody(rawBody);
      } catch (err) {
        this.malformed(err, res);
        return;
      }
      this.dispatch(payload, req, res);
    });
    return router;
  }

  private verified(req: Request, res: Response): Buffer | null {
    const rawBody = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const nowSeconds = this.options.nowSeconds?.() ?? Math.floor(Date.now() / 1000);
    const verdict = verifySlackRequest({
      signingSecret: this.options.signingSecret,
      rawBody,
      headers: req.headers,
      nowSeconds,
    });
    if (!verdict.ok) {
      res
        .status(401)
        .json({ error: 'unauthorized', message: `the Slack request signature was refused: ${verdict.reason}.` });
      return null;
    }
    return rawBody;
  }

  private malformed(err: unknown, res: Response): void {
    if (!(err instanceof MalformedRequest)) throw err;
    res.status(400).json({ error: 'invalid_request', message: `not a Slack request: ${err.message}.`, field: 'body' });
  }

  private dispatch(body: Record<string, unknown>, req: Request, res: Response): void {
    const app = this.app;
    if (app === null) throw new Error('the Slack receiver was mounted before Bolt initialised it');
    let acked = false;
    const respond = (response: unknown): void => {
      if (acked) return;
      acked = true;
      clearTimeout(fallback);
      if (response === undefined || response === '') res.status(200).end();
      else if (typeof response === 'string') res.status(200).type('text/plain').send(response);
      else res.status(200).json(response);
    };
    const fallback = setTimeout(() => {
      this.options.logger?.warn(
        { channel: 'slack', type: body['type'] },
        'slack handler did not acknowledge in time; acknowledged for it',
      );
      respond(undefined);
    }, ACK_FALLBACK_MS);
    fallback.unref();
    const event: ReceiverEvent = {
      body,
      retryNum: retryNum(req.headers),
      retryReason: retryReason(req.headers),
      ack: async (response?: unknown) => respond(response),
    };
    app
      .processEvent(event)
      .catch((err: unknown) =>
        this.options.logger?.warn(
          { channel: 'slack', err: err instanceof Error ? err.message : String(err) },
          'slack handler failed',
        ),
      )
      // Nothing listened (an event askgate does not act on): Slack still wants its 200.
      .finally(() => respond(undefined));
  }
}
