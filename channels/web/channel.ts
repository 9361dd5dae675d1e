import type { ChannelModule } from '../module.js';
import { ChatLogConversations } from './conversation-log.js';
import { ChatLogQuestions } from './question-log.js';
import { WebChatChannel } from './plugin.js';

/** The web chat needs no platform and is always on. */
export const web: ChannelModule = {
  name: 'web',
  place: 'in the web chat',
  variablePrefix: null,
  fromConfig: ({ settings, doors, state }) =>
    new WebChatChannel({
      // The deployment's key for the links: every process derives it alike, and rotating the tokens revokes them.
      secret: settings.signingKey('web chat v1'),
      publicBaseUrl: settings.publicBaseUrl,
      // Replies are posted by the worker and read by whichever process serves the page: one log in the shared state.
      conversations: new ChatLogConversations(state.chatLogs),
      // Which questions each recipient was shown, so a reload shows the ended ones too.
      questions: new ChatLogQuestions(state.chatLogs),
      ...doors,
    }),
};
