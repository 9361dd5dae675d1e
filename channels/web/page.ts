import { appPage } from '../../src/doors/app-page.js';

/** The web chat page: a static shell (no data, no token); web/chat.ts does the rest under a strict CSP. */
export const CHAT_PAGE = appPage({
  title: 'Chat',
  stylesheets: ['forms.css', 'inbox.css', 'chat.css'],
  script: 'chat.js',
  topbarStatus: '<span id="who" class="count"></span>',
  main: `  <p id="notice" class="notice" role="alert" hidden></p>
  <p id="empty" class="empty" hidden>No questions for you right now.</p>
  <ol id="thread" class="cards chat" aria-label="Conversation"></ol>`,
  noscript: 'The chat needs JavaScript.',
});
