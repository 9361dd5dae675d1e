import type { RequestHandler } from 'express';
import type { ChannelPlugin } from './contract.js';
import type { ChannelEnv } from './env.js';
import type { ChannelState } from '../src/core/channel-state.js';
import type { Logger } from '../src/observability/logger.js';

/** What every channel may read of the gateway's configuration. */
export interface ChannelSettings {
  /** The environment the gateway started with: a channel reads its own variables from it (its `config.ts`). */
  env: ChannelEnv;
  /** INTERACTIONS_PUBLIC_BASE_URL: the origin people reach askgate on; null when unset. */
  publicBaseUrl: string | null;
  /**
   * A key every process of the deployment derives alike for `purpose` (from its bearer tokens, so rotating them
   * rotates it), for a channel that signs what it hands out (the web chat's links). Never a token itself.
   */
  signingKey(purpose: string): string;
}

/** What a channel is built from: the settings, the logger, the doors' guards and the channel state. */
export interface ChannelContext {
  settings: ChannelSettings;
  logger: Logger;
  doors: { requireWrite?: RequestHandler };
  /**
   * The deployment's channel state (conversation references, shared pacing slots, chat logs, event dedupe): shared
   * by every process when `state.shared`, else this process's own.
   */
  state: ChannelState;
}

/**
 * One channel as the gateway installs it: its name, and how it is built from configuration. Each channel folder
 * exports one from `channels/<name>/channel.ts`, and channels/registration/installed.ts lists them (one line each).
 */
export interface ChannelModule {
  /** The channel's name: its folder's, the `channel` an ask names, and the `surface` of the answers it takes. */
  readonly name: string;
  /**
   * Where an answer on this channel came from, as a person reads it after "Approved by <who>": `on Telegram`, `in
   * the web chat`. A function of the verified answerer when one channel carries several places (Twilio: SMS or
   * WhatsApp).
   */
  readonly place: string | ((answeredBy: string) => string);
  /**
   * The prefix every variable of the channel starts with (`TELEGRAM_`), or null when it reads none. A webhook
   * verifier's binding may not name such a variable as its secret (the gateway reserves them).
   */
  readonly variablePrefix: string | null;
  /**
   * The channel, or null when its variables are absent (asking on it is then an unknown channel). Throws the
   * configuration's ConfigError, naming the variable and the fix, for a half-configured channel.
   */
  fromConfig(context: ChannelContext): ChannelPlugin | null;
}
