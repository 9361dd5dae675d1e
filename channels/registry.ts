import type { ChannelDirectory, ChannelPort } from '../src/core/ports.js';

/**
 * What the core needs from a chat channel: the core's `ChannelPort` (`src/core/ports.ts`). The full plugin contract
 * (webhooks, replies into threads) lives in `channels/contract.ts`.
 */
export type DeliveringChannel = ChannelPort;

/** The channels registered from configuration, by name: the core's `ChannelDirectory`. */
export class ChannelRegistry implements ChannelDirectory {
  private readonly byName = new Map<string, ChannelPort>();

  register(channel: ChannelPort): void {
    if (this.byName.has(channel.name)) throw new Error(`channel "${channel.name}" is registered twice`);
    this.byName.set(channel.name, channel);
  }

  get(name: string): ChannelPort | undefined {
    return this.byName.get(name);
  }

  names(): string[] {
    return [...this.byName.keys()].sort();
  }
}
