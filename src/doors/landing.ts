import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Router } from 'express';
import { setBaseSecurityHeaders } from '../pages/app-page.js';
import { docPage } from './doc-page.js';
import { packageRoot } from './inbox.js';

/** What the landing page tells about this gateway. */
export interface LandingFacts {
  /** `memory` or `redis`. */
  store: string;
  /** The registered channels, by name. */
  channels: readonly string[];
}

/** The landing page runs nothing: no script at all, styles from this origin only. */
const LANDING_CSP =
  "default-src 'none'; style-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The version in askgate's package.json under `root`; empty when it cannot be read. */
export function packageVersion(root: string): string {
  try {
    return (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version?: string }).version ?? '';
  } catch {
    return '';
  }
}

/** The docs shipped with askgate (docs/*.md), served so the landing page can link them. */
function docNames(root: string): string[] {
  try {
    return readdirSync(join(root, 'docs'))
      .filter((name) => /^[\w-]+\.md$/.test(name))
      .sort();
  } catch {
    return [];
  }
}

export function landingPage(facts: LandingFacts, root: string): string {
  const store =
    facts.store === 'memory'
      ? 'the in-memory store (one process, sync asks; set <code>REDIS_URL</code> for parks and several processes)'
      : 'Redis';
  const channels = facts.channels.length === 0 ? 'none' : facts.channels.map(escapeHtml).join(', ');
  const docs = docNames(root)
    .map((name) => `<li><a href="/docs/${name}">${escapeHtml(name.replace(/\.md$/, ''))}</a></li>`)
    .join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>askgate</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/assets/web/forms.css">
<link rel="stylesheet" href="/assets/web/inbox.css">
</head>
<body>
<header class="topbar"><h1>askgate ${escapeHtml(packageVersion(root))}</h1></header>
<main class="landing">
  <p>This askgate gateway is running on ${store}. Channels: ${channels}.</p>
  <p><a class="btn btn-primary" href="/inbox">Open the inbox</a></p>
  <h2>Check on it</h2>
  <ul>
    <li><a href="/healthz">/healthz</a> — alive</li>
    <li><a href="/readyz">/readyz</a> — the store answers</li>
    <li><a href="/metrics">/metrics</a> — Prometheus metrics</li>
  </ul>
  <h2>The API</h2>
  <ul>
    <li><a href="/openapi.json">/openapi.json</a> — the OpenAPI 3.1 document of every <code>/api</code> door</li>
  </ul>
  <h2>Documentation</h2>
  <ul>${docs}</ul>
</main>
</body>
</html>
`;
}

/**
 * `GET /`: what runs here and where to go next (never a 404); `GET /docs/<name>.md`: the shipped docs, as a page (or
 * as markdown for a client that asks for it).
 */
export function landingRouter(facts: LandingFacts, root = packageRoot()): Router {
  const router = Router();
  const page = landingPage(facts, root);
  const docs = new Set(docNames(root));
  router.get('/', (_req, res) => {
    setBaseSecurityHeaders(res);
    res.setHeader('Content-Security-Policy', LANDING_CSP);
    res.type('html').send(page);
  });
  router.get('/docs/:name', (req, res, next) => {
    const name = req.params['name'] as string;
    if (!docs.has(name)) {
      next();
      return;
    }
    setBaseSecurityHeaders(res);
    const markdown = readFileSync(join(root, 'docs', name), 'utf8');
    // A browser gets the page; a client that asks for markdown (curl -H 'Accept: text/markdown'), or ?raw, the text.
    if (req.query['raw'] !== undefined || req.accepts(['text/html', 'text/markdown']) === 'text/markdown') {
      res.setHeader('Content-Security-Policy', "default-src 'none'");
      res.type('text/markdown; charset=utf-8').send(markdown);
      return;
    }
    res.setHeader('Content-Security-Policy', LANDING_CSP);
    res.type('html').send(docPage(name, markdown, packageVersion(root)));
  });
  return router;
}
