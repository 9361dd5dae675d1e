import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectionFaults } from '../fakes/connection-faults.js';
import { startDiscordWorld, freshChannel as freshDiscordChannel } from './discord-harness.js';
import type { PlatformWorld } from './platform-world.js';
import { startSlackWorld, freshChannel as freshSlackChannel } from './slack-harness.js';
import { freshChat, startTelegramWorld } from './telegram-harness.js';
import { freshPhone, startTwilioWorld } from './twilio-harness.js';
import { freshNumber, startWhatsAppWorld } from './whatsapp-harness.js';

/**
 * A question's send that fails on the way (docs/channels.md, "When a send fails on the way"): each platform fake
 * resets the connection of the send request (TCP RST, before it reads a byte), and the gateway tries again — three
 * sends at most — before the ask is refused with 502. The platform's own refusal (a 4xx) is final at once: the fake
 * sees one request. Requests are counted at the fake, the reset ones included.
 */

interface Case {
  name: string;
  start(): Promise<PlatformWorld<{ faults: ConnectionFaults }>>;
  /** The part of the send request's path the fake is told to reset. */
  sendPath: string;
  freshRecipient(): string;
  /** The messages the fake holds for `recipient`. */
  held(world: PlatformWorld<never>, recipient: string): number;
  /** Makes the platform refuse sends to `recipient` with a 4xx (its documented error for it). */
  refuse(world: PlatformWorld<never>, recipient: string): void;
}

type Fake<W> = W extends PlatformWorld<infer F> ? F : never;
type TelegramFake = Fake<Awaited<ReturnType<typeof startTelegramWorld>>>;
type SlackFake = Fake<Awaited<ReturnType<typeof startSlackWorld>>>;
type TwilioFake = Fake<Awaited<ReturnType<typeof startTwilioWorld>>>;
type DiscordFake = Fake<Awaited<ReturnType<typeof startDiscordWorld>>>;
type GraphFake = Fake<Awaited<ReturnType<typeof startWhatsAppWorld>>>;

const CASES: Case[] = [
  {
    name: 'telegram',
    start: () => startTelegramWorld(),
    sendPath: '/sendMessage',
    freshRecipient: freshChat,
    held: (w, chat) => (w.fake as TelegramFake).messagesIn(chat).length,
    refuse: (w, chat) => (w.fake as TelegramFake).forgetChat(chat),
  },
  {
    name: 'slack',
    start: () => startSlackWorld(),
    sendPath: '/chat.postMessage',
    freshRecipient: freshSlackChannel,
    held: (w, channel) => (w.fake as SlackFake).messagesIn(channel).length,
    refuse: (w, channel) => (w.fake as SlackFake).forgetChannel(channel),
  },
  {
    name: 'twilio',
    start: () => startTwilioWorld({ statusCallbacks: false }),
    sendPath: '/Messages.json',
    freshRecipient: freshPhone,
    held: (w, to) => (w.fake as TwilioFake).sentTo(to).length,
    refuse: (w, to) => (w.fake as TwilioFake).optOut(to),
  },
  {
    name: 'discord',
    start: () => startDiscordWorld(),
    sendPath: '/messages',
    freshRecipient: freshDiscordChannel,
    held: (w, channel) => (w.fake as DiscordFake).messagesIn(channel).length,
    refuse: (w, channel) => (w.fake as DiscordFake).forgetChannel(channel),
  },
  {
    name: 'whatsapp',
    start: () => startWhatsAppWorld(),
    sendPath: '/messages',
    freshRecipient: () => `+${freshNumber()}`,
    held: (w, to) => (w.fake as GraphFake).sentTo(to.slice(1)).length,
    // 131009 "Parameter value is not valid", HTTP 400 (the Cloud API's error codes page).
    refuse: (w) => (w.fake as GraphFake).failNext(131009),
  },
];

describe.each(CASES)('$name: a send that fails on the way', (c) => {
  let w: PlatformWorld<{ faults: ConnectionFaults }>;
  const world = (): PlatformWorld<never> => w as unknown as PlatformWorld<never>;
  beforeAll(async () => {
    w = await c.start();
  }, 60_000);
  afterAll(async () => w?.close());

  const ask = (recipient: string) =>
    w.http.post('/api/interactions', { question: 'Ship it?', answer_format: 'confirm', channel: c.name, recipient });

  it('is sent again after two reset connections, and the question is delivered once', async () => {
    const recipient = c.freshRecipient();
    const before = w.fake.faults.requestsTo(c.sendPath);
    const resetsBefore = w.fake.faults.resets;
    w.fake.faults.resetNext(2, c.sendPath);
    const res = await ask(recipient);
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    expect(w.fake.faults.resets - resetsBefore).toBe(2);
    expect(w.fake.faults.requestsTo(c.sendPath) - before).toBe(3);
    expect(c.held(world(), recipient)).toBe(1);
    expect((await w.record(res.json['id'] as string))['status']).toBe('pending');
  });

  it('an outage that outlasts the tries ends in 502 after three sends, and nothing stays pending', async () => {
    const recipient = c.freshRecipient();
    const before = w.fake.faults.requestsTo(c.sendPath);
    w.fake.faults.resetAll(c.sendPath);
    try {
      const res = await ask(recipient);
      expect(res.status).toBe(502);
      expect(res.json['error']).toBe('channel_delivery_failed');
      expect(res.json['channel']).toBe(c.name);
      expect(w.fake.faults.requestsTo(c.sendPath) - before).toBe(3);
      expect(c.held(world(), recipient)).toBe(0);
      expect((await w.record(res.json['interaction_id'] as string))['status']).toBe('cancelled');
    } finally {
      w.fake.faults.heal();
    }
  });

  it("the platform's own refusal (4xx) is not sent again", async () => {
    const recipient = c.freshRecipient();
    const before = w.fake.faults.requestsTo(c.sendPath);
    c.refuse(world(), recipient);
    const res = await ask(recipient);
    expect(res.status).toBe(502);
    expect(res.json['error']).toBe('channel_delivery_failed');
    expect(w.fake.faults.requestsTo(c.sendPath) - before).toBe(1);
  });
});
