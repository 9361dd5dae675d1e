import { appPage } from '../../src/pages/app-page.js';

/** The web chat page: a static shell (no data, no token); web/chat.ts does the rest under a strict CSP. */
export const CHAT_PAGE = appPage({
  title: 'Chat',
  stylesheets: ['forms.css', 'inbox.css', 'review.css', 'chat.css'],
  script: 'chat.js',
  topbarStatus: '<span id="who" class="count"></span>',
  main: `  <p id="notice" class="notice" role="alert" hidden></p>
  <p id="empty" class="empty" hidden>No questions for you right now.</p>
  <ol id="thread" class="cards chat" aria-label="Conversation"></ol>
  <form id="compose" class="chat compose" autocomplete="off" hidden>
    <label for="message" class="visually-hidden">Message</label>
    <input id="message" name="message" maxlength="4000" placeholder="Write a message" required>
    <button type="submit" class="btn btn-primary">Send</button>
  </form>
  <p id="compose-error" class="control-error" role="alert" hidden></p>`,
  noscript: 'The chat needs JavaScript.',
});
