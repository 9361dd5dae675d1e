import type { Response } from 'express';

/**
 * The page shell both browser apps are served as: the inbox (`GET /inbox`) and the web chat (`GET /chat`). A shell
 * carries no data and no token: the script reads the token from the URL fragment (never sent to the server) and
 * talks to the API like any other client. That keeps the page safe to serve as it is and lets a strict
 * Content-Security-Policy forbid every inline script.
 */

/**
 * The shells' policy. Question media are third-party `https:` images (or `data:` images) and links; everything the
 * page runs or fetches is this origin's. No inline script or style is allowed anywhere.
 */
export const APP_PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' https: data:",
  "connect-src 'self'",
  'media-src https:',
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export interface AppPageShell {
  /** The heading, and the title before "· askgate". */
  title: string;
  /** Files under /assets/web/, in cascade order. */
  stylesheets: readonly string[];
  /** The module under /assets/web/ that runs the page. */
  script: string;
  /** The top bar's element between the heading and the live status (a count, who is signed in). */
  topbarStatus: string;
  /** The inside of <main>, each line indented. */
  main: string;
  /** Shown when scripts are off. */
  noscript: string;
}

export function appPage(shell: AppPageShell): string {
  const stylesheets = shell.stylesheets.map((file) => `<link rel="stylesheet" href="/assets/web/${file}">\n`).join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="color-scheme" content="light dark">
<title>${shell.title} · askgate</title>
<link rel="icon" href="data:,">
${stylesheets}<script type="module" src="/assets/web/${shell.script}"></script>
</head>
<body>
<header class="topbar">
  <h1>${shell.title}</h1>
  ${shell.topbarStatus}
  <span id="live" class="live" role="status">Connecting…</span>
</header>
<main>
${shell.main}
</main>
<noscript><p class="notice">${shell.noscript}</p></noscript>
</body>
</html>
`;
}

/** Headers every shell and every asset carries: no type sniffing, no referrer leaking the path. */
export function setBaseSecurityHeaders(res: Response): void {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
}

/** Sends a shell the way both apps are served: the base headers, the shells' policy, and `no-store`. */
export function sendAppPage(res: Response, html: string): void {
  setBaseSecurityHeaders(res);
  res.setHeader('Content-Security-Policy', APP_PAGE_CSP);
  res.setHeader('Cache-Control', 'no-store');
  res.type('html').send(html);
}
