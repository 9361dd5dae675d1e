import {
  startFakeDiscord,
  type FakeDiscord,
  type FakeDiscordMessage,
  type FakeModal,
  type InteractionOutcome,
} from '../fakes/discord-server.js';
import { startPlatformWorld, type PlatformWorld } from './platform-world.js';

type Json = Record<string, unknown>;

export interface DiscordWorld extends PlatformWorld<FakeDiscord> {
  /** Asks on Discord (a fresh channel unless the body names one); returns the id and the message the fake holds. */
  ask(body: Record<string, unknown>): Promise<{ id: string; message: FakeDiscordMessage }>;
  /** Waits until the question message has been edited away from its first content. */
  edited(message: FakeDiscordMessage): Promise<FakeDiscordMessage>;
}

let channelSeq = 1_300_000_000_000_500_000n;
/** A fresh channel per question keeps one test's rate-limit bucket from slowing the next. */
export const freshChannel = (): string => String(++channelSeq);

export async function startDiscordWorld(env: Record<string, string> = {}): Promise<DiscordWorld> {
  const fake = await startFakeDiscord();
  const world = await startPlatformWorld(fake, {
    DISCORD_BOT_TOKEN: fake.botToken,
    DISCORD_PUBLIC_KEY: fake.publicKey,
    DISCORD_APPLICATION_ID: fake.applicationId,
    DISCORD_API_URL: fake.apiUrl,
    INTERACTIONS_PUBLIC_BASE_URL: 'http://127.0.0.1:1',
    ...env,
  });
  fake.useGateway(world.gw.url);
  return {
    ...world,
    async ask(body) {
      const { id, message } = await world.askDelivered(
        { channel: 'discord', recipient: freshChannel(), ...body },
        (delivery) => fake.message(delivery['channel_id'] ?? '', delivery['message_id'] ?? ''),
      );
      return { id, message };
    },
    async edited(message) {
      const deadline = Date.now() + 5000;
      while (message.history.length < 2) {
        if (Date.now() > deadline) throw new Error('the question message was never edited');
        await new Promise((r) => setTimeout(r, 20));
      }
      return message;
    },
  };
}

/** Every component (button, select) a message still carries. */
export function controlsOf(message: FakeDiscordMessage): Json[] {
  return message.components.flatMap((row) => (row['components'] as Json[] | undefined) ?? []);
}

/** The custom_id of the button labelled `label`. */
export function buttonId(message: FakeDiscordMessage, label: string): string {
  const button = controlsOf(message).find((c) => c['type'] === 2 && c['label'] === label);
  if (button === undefined) throw new Error(`no button "${label}" on the message`);
  return button['custom_id'] as string;
}

/** The modal an interaction opened, or a failure saying what came back instead. */
export function modalOf(outcome: InteractionOutcome): FakeModal {
  if (outcome.modal === null)
    throw new Error(
      `no modal opened: ${JSON.stringify({ status: outcome.status, refused: outcome.refused, response: outcome.response })}`,
    );
  return outcome.modal;
}
