/** The web chat page: a static shell (no data, no token); web/chat.ts does the rest under a strict CSP. */
export const CHAT_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="color-scheme" content="light dark">
<title>Chat · askgate</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/assets/web/forms.css">
<link rel="stylesheet" href="/assets/web/inbox.css">
<link rel="stylesheet" href="/assets/web/chat.css">
<script type="module" src="/assets/web/chat.js"></script>
</head>
<body>
<header class="topbar">
  <h1>Chat</h1>
  <span id="who" class="count"></span>
  <span id="live" class="live" role="status">Connecting…</span>
</header>
<main>
  <p id="notice" class="notice" role="alert" hidden></p>
  <p id="empty" class="empty" hidden>No questions for you right now.</p>
  <ol id="thread" class="cards chat" aria-label="Conversation"></ol>
</main>
<noscript><p class="notice">The chat needs JavaScript.</p></noscript>
</body>
</html>
`;
