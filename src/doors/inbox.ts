import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { Router, type NextFunction, type Request, type Response } from 'express';
import { appPage, sendAppPage, setBaseSecurityHeaders } from '../pages/app-page.js';

/**
 * `GET /inbox` (the web inbox page) and `GET /assets/*` (the browser code and styles it, the web chat and the
 * callback page use). The page is a static shell (app-page.ts says why).
 */

/**
 * The repository root: the nearest folder above this module holding askgate's package.json. Walking up works the
 * same from `src/doors/inbox.ts` (tests run the sources) and `dist/src/doors/inbox.js` (the build).
 */
export function packageRoot(): string {
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
    if (parent === dir)
      throw new Error(`inbox: cannot find askgate's package.json above ${fileURLToPath(import.meta.url)}`);
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

const INBOX_PAGE = appPage({
  title: 'Inbox',
  stylesheets: ['forms.css', 'inbox.css', 'review.css'],
  script: 'inbox.js',
  topbarStatus: '<span id="count" class="count" aria-live="polite"></span>',
  main: `  <form id="signin" class="signin" hidden>
    <h2>Sign in</h2>
    <p>Paste an askgate token with the <code>read</code> and <code>answer</code> scopes. It is kept in this tab only.</p>
    <label for="signin-token">Token</label>
    <input id="signin-token" name="token" type="password" autocomplete="off" required>
    <button type="submit" class="btn btn-primary">Open the inbox</button>
  </form>
  <p id="notice" class="notice" role="alert" hidden></p>
  <p id="empty" class="empty" hidden>Nothing is waiting for an answer.</p>
  <ol id="cards" class="cards" aria-label="Pending questions"></ol>`,
  noscript: 'The inbox needs JavaScript.',
});

function securityHeaders(_req: Request, res: Response, next: NextFunction): void {
  setBaseSecurityHeaders(res);
  next();
}

/** The web inbox page and the static browser assets. Mount at the root of the app. */
export function inboxRouter(paths: AssetPaths = assetPaths()): Router {
  const router = Router();

  router.get('/inbox', (_req, res) => sendAppPage(res, INBOX_PAGE));

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
