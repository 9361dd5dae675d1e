import { postEvent, postInteraction, type SendOptions, type SlackResponse } from '../fakes/slack-payloads.js';
import { FAKE_SLACK_TOKEN, startFakeSlack, type FakeSlack, type FakeSlackMessage } from '../fakes/slack-server.js';
import { startPlatformWorld, type PlatformWorld } from './platform-world.js';

export const SIGNING_SECRET = 'slack-signing-secret-0123456789abcdef';
export const BOT_TOKEN = FAKE_SLACK_TOKEN;

type Probe<T> = T | undefined | null | false;

export interface SlackWorld extends PlatformWorld<FakeSlack> {
  /** Asks on Slack; returns the interaction id and the message the fake received. */
  ask(body: Record<string, unknown>): Promise<{ id: string; message: FakeSlackMessage }>;
  event(body: unknown, options?: SendOptions): Promise<SlackResponse>;
  interact(payload: unknown, options?: SendOptions): Promise<SlackResponse>;
  /** Waits until the question message has been updated away from its first text. */
  edited(message: FakeSlackMessage): Promise<FakeSlackMessage>;
  /** Waits until `probe` returns a value (the work Slack's 3-second ack lets run after the response). */
  eventually<T>(probe: () => Probe<T> | Promise<Probe<T>>): Promise<T>;
}

let channelSeq = 1000;
/** A fresh channel per test keeps one test's per-channel pacing from slowing the next. */
export const freshChannel = (): string => `C0TEST${++channelSeq}`;

export async function startSlackWorld(env: Record<string, string> = {}): Promise<SlackWorld> {
  const fake = await startFakeSlack();
  const world = await startPlatformWorld(fake, {
    SLACK_BOT_TOKEN: BOT_TOKEN,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: fake.apiUrl,
    INTERACTIONS_PUBLIC_BASE_URL: 'http://127.0.0.1:1',
    ...env,
  });
  const eventually = async <T>(probe: () => Probe<T> | Promise<Probe<T>>): Promise<T> => {
    const deadline = Date.now() + 5000;
    for (;;) {
      const v = await probe();
      if (v !== undefined && v !== null && v !== false) return v;
      if (Date.now() > deadline) throw new Error('the expected Slack call never came');
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  return {
    ...world,
    async ask(body) {
      const { id, message } = await world.askDelivered(
        { channel: 'slack', recipient: freshChannel(), ...body },
        (delivery) => fake.message(delivery['channel'] ?? '', delivery['ts'] ?? ''),
      );
      return { id, message };
    },
    event: (body, options) => postEvent(world.gw.url, SIGNING_SECRET, body, options),
    interact: (payload, options) => postInteraction(world.gw.url, SIGNING_SECRET, payload, options),
    edited: (message) => eventually(() => message.history.length >= 2 && message),
    eventually,
  };
}

/** The interactive controls a message still carries. */
export function controls(message: FakeSlackMessage): number {
  return message.blocks.filter((b) => b['type'] === 'actions').flatMap((b) => b['elements'] as unknown[]).length;
}
