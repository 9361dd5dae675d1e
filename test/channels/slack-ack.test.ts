import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChannelCore } from '../../channels/contract.js';
import type { WebhookRoute } from '../../channels/http.js';
import { ACK_DEADLINE_MS, ACK_FALLBACK_MS } from '../../channels/slack/limits.js';
import { FORM_CALLBACK_ID, encodeMetadata } from '../../channels/slack/modal.js';
import { SlackChannel } from '../../channels/slack/plugin.js';
import { SLACK_INTERACTIONS_PATH } from '../../channels/slack/receiver.js';
import { signSlackRequest } from '../../channels/slack/verify.js';
import { viewSubmission } from '../fakes/slack-payloads.js';
import { startFakeSlack, type FakeSlack } from '../fakes/slack-server.js';

/**
 * Slack's 3-second rule through the framework-free door: a request whose Bolt listener has not acknowledged in
 * time is acknowledged for it, and the listener still finishes. Driven straight through the channel's declared
 * route (no HTTP server): Bolt, the pipeline and the signature check are the real ones.
 */
const SECRET = 'slack-ack-secret';
let fake: FakeSlack;
beforeAll(async () => {
  fake = await startFakeSlack({ token: 'xoxb-ack' });
});
afterAll(async () => fake.close());

describe('slack quick acknowledgement', () => {
  it('answers 200 before the deadline when a listener is slow to ack, and lets the listener finish', async () => {
    let looked = 0;
    // The submission's listener dispatches the answer before it acks; here that dispatch is held until the door has
    // answered, so the 200 cannot have come from the listener.
    let release: () => void = () => {};
    const held = new Promise<void>((r) => (release = r));
    const core = {
      dispatch: async () => {
        await held;
        looked += 1;
        return { kind: 'not_found' };
      },
      firstSeen: async () => true,
    } as unknown as ChannelCore; // the listener under test reads only these two
    const channel = new SlackChannel({ botToken: 'xoxb-ack', signingSecret: SECRET, apiUrl: fake.apiUrl });
    const route = channel
      .webhooks(core)
      .find((r) => r.method === 'POST' && r.path === SLACK_INTERACTIONS_PATH) as WebhookRoute;
    const payload = viewSubmission(
      {
        id: 'V0ACK',
        hash: 'h1',
        view: {
          type: 'modal',
          callback_id: FORM_CALLBACK_ID,
          private_metadata: encodeMetadata({ interactionId: 'Q0ACK', channel: null, ts: null }),
          blocks: [],
        },
        history: [],
      },
      {},
    );
    const body = `payload=${encodeURIComponent(JSON.stringify(payload))}`;
    const timestamp = Math.floor(Date.now() / 1000);
    const started = Date.now();
    const res = await route.handle({
      method: 'POST',
      path: SLACK_INTERACTIONS_PATH,
      query: {},
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-slack-request-timestamp': String(timestamp),
        'x-slack-signature': signSlackRequest(SECRET, timestamp, body),
      },
      rawBody: Buffer.from(body),
      url: SLACK_INTERACTIONS_PATH,
    });
    const took = Date.now() - started;
    expect(res).toEqual({ status: 200 });
    // The door waits its fallback for the listener first, and that fallback lies inside Slack's deadline.
    expect(took).toBeGreaterThanOrEqual(ACK_FALLBACK_MS - 50);
    expect(ACK_FALLBACK_MS).toBeLessThan(ACK_DEADLINE_MS);
    expect(looked).toBe(0);
    release();
    await expect.poll(() => looked, { timeout: 10_000, interval: 50 }).toBe(1);
  }, 30_000);
});
