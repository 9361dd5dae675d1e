import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { Router, type NextFunction, type Request, type Response } from 'express';

/**
 * `GET /inbox` (the web inbox page) and `GET /assets/*` (the browser code and styles it and the callback page use).
 *
 * The page is a static shell: no data and no token is rendered into it. The browser reads the token from the URL
 * fragment (never sent to the server), then talks to the API doors like any other client. That keeps the page
 * cacheable-safe and lets a strict Content-Security-Policy forbid every inline script.
 */

/**
 * The page's policy. Question media are third-party `https:` images (or `data:` images) and links; everything the
 * page runs or fetches is this origin's. No inline script or style is allowed anywhere.
 */
export const INBOX_CSP = [
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

/**
 * The repository root: the nearest folder above this module holding askgate's package.json. Walking up works the
 * same from `src/doors/inbox.ts` (tests run the sources) and `dist/src/doors/inbox.js` (the build).
 */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        if ((JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === 'askgate') return dir;
      } catch {
        // Not ours or unreadable: keep walking up.
      }
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error('inbox: cannot find askgate\'s package.json above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
}

export interface AssetPaths {
  /** The browser build (`tsc -p tsconfig.web.json`): `dist/web/web/*.js`, `dist/web/forms/*.js`. */
  compiled: string;
  /** Stylesheets, served as written from `web/*.css` (tsc does not copy them). */
  styles: string;
}

export function assetPaths(root = packageRoot()): AssetPaths {
  return { compiled: join(root, 'dist', 'web'), styles: join(root, 'web') };
}

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="color-scheme" content="light dark">
<title>Inbox · askgate</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/assets/web/forms.css">
<link rel="stylesheet" href="/assets/web/inbox.css">
<script type="module" src="/assets/web/inbox.js"></script>
</head>
<body>
<header class="topbar">
  <h1>Inbox</h1>
  <span id="count" class="count" aria-live="polite"></span>
  <span id="live" class="live" role="status">Connecting…</span>
</header>
<main>
  <form id="signin" class="signin" hidden>
    <h2>Sign in</h2>
    <p>Paste an askgate token with the <code>read</code> and <code>answer</code> scopes. It is kept in this tab only.</p>
    <label for="signin-token">Token</label>
    <input id="signin-token" name="token" type="password" autocomplete="off" required>
    <button type="submit">Open the inbox</button>
  </form>
  <p id="notice" class="notice" role="alert" hidden></p>
  <p id="empty" class="empty" hidden>Nothing is waiting for an answer.</p>
  <ol id="cards" class="cards" aria-label="Pending questions"></ol>
</main>
<noscript><p class="notice">The inbox needs JavaScript.</p></noscript>
</body>
</html>
`;

function securityHeaders(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  next();
}

/** The web inbox page and the static browser assets. Mount at the root of the app. */
export function inboxRouter(paths: AssetPaths = assetPaths()): Router {
  const router = Router();

  router.get('/inbox', securityHeaders, (_req, res) => {
    res.setHeader('Content-Security-Policy', INBOX_CSP);
    res.setHeader('Cache-Control', 'no-store');
    res.type('html').send(PAGE);
  });

  const statics = { index: false, fallthrough: true, redirect: false, dotfiles: 'ignore' } as const;
  router.use('/assets', securityHeaders, express.static(paths.compiled, statics));
  // Only stylesheets come from the source folder: the TypeScript there is never served.
  router.use(
    '/assets/web',
    (req, _res, next) => (/^\/[\w.-]+\.css$/.test(req.path) ? next() : next('router')),
    express.static(paths.styles, statics),
  );
  return router;
}
