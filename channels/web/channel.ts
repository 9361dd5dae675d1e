import { createHash } from 'node:crypto';
import type { ChannelModule } from '../from-config.js';
import { MemoryConversationLog, RedisConversationLog } from './conversation-log.js';
import { WebChatChannel } from './plugin.js';
import type { Config } from '../../src/config.js';

/**
 * The web chat's link-signing key, derived from the configured bearer tokens: every process of a deployment shares
 * ASKGATE_TOKENS, so they agree on it without another secret to distribute; rotating the tokens revokes the links.
 */
export function webChatSecret(config: Pick<Config, 'tokens'>): string {
  return createHash('sha256')
    .update(`askgate web chat v1\n${[...config.tokens.keys()].sort().join('\n')}`)
    .digest('base64url');
}

/** The web chat needs no platform and is always on. */
export const web: ChannelModule = {
  name: 'web',
  fromConfig: ({ config, doors, redis }) =>
    new WebChatChannel({
      secret: webChatSecret(config),
      publicBaseUrl: config.publicBaseUrl,
      // Replies are posted by the worker and read by whichever process serves the page: one log on the shared Redis.
      conversations:
        redis === null
          ? new MemoryConversationLog()
          : new RedisConversationLog({
              client: redis.command(),
              keys: redis.keys,
              subscriber: () => redis.subscriber(),
            }),
      ...doors,
    }),
};
