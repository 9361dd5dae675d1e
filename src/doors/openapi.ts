import { Router } from 'express';
import { packageRoot } from './inbox.js';
import { packageVersion } from './landing.js';
import { openApiDocument } from './openapi-document.js';

/** Where the document is served. */
export const OPENAPI_PATH = '/openapi.json';

/**
 * `GET /openapi.json`: the OpenAPI 3.1 document of the `/api` doors (openapi-document.ts), built once at start.
 * **Decision:** public, no token: it describes the doors and holds nothing of this deployment (no server URL, no
 * token, no configured channel), like the docs the landing page links. It is sent with `Access-Control-Allow-Origin:
 * *` so a viewer on another origin (editor.swagger.io) can load it by URL; no credentials ride on that request.
 */
export function openApiRouter(root = packageRoot()): Router {
  const router = Router();
  const body = JSON.stringify(openApiDocument(packageVersion(root)));
  router.get(OPENAPI_PATH, (_req, res) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.type('application/json; charset=utf-8').send(body);
  });
  return router;
}
