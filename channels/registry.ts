import type { ChannelCapabilities } from '../src/core/ask-request.js';
import type { StoredInteraction } from '../src/core/types.js';

/**
 * What the core needs from a chat channel. The full plugin contract (webhooks, replies into threads) lives in
 * `channels/contract.ts`; the core depends on this narrow face only.
 */
export interface DeliveringChannel {
  readonly name: string;
  readonly capabilities: ChannelCapabilities;
  /** Renders and sends the question; returns the platform references of the sent message. Throws ChannelError. */
  deliver(interaction: StoredInteraction, callbackUrl: string): Promise<Record<string, string>>;
  /** After an answer, an expiry or a cancel: the question message shows the outcome and loses its buttons. */
  showOutcome?(interaction: StoredInteraction): Promise<void>;
}

/** The channels registered from configuration, by name. */
export class ChannelRegistry {
  private readonly byName = new Map<string, DeliveringChannel>();

  register(channel: DeliveringChannel): void {
    if (this.byName.has(channel.name)) throw new Error(`channel "${channel.name}" is registered twice`);
    this.byName.set(channel.name, channel);
  }

  get(name: string): DeliveringChannel | undefined {
    return this.byName.get(name);
  }

  names(): string[] {
    return [...this.byName.keys()].sort();
  }
}
