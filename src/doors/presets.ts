import { jsonBody } from './json-body.js';
import { Router } from 'express';
import type { PresetService } from '../confirmations/presets.js';
import { identityOf, type TokenAuthenticator } from './auth.js';

/**
 * `PUT /api/presets/{name}` (admin: writing a preset is writing the binding a confirmation trusts, so it is an
 * operator's scope, never an agent's), `GET /api/presets/{name}` (read), `POST /api/presets/{name}/ask` (write).
 */
export function presetsRouter(presets: PresetService, auth: TokenAuthenticator): Router {
  const router = Router();
  const body = jsonBody('1mb');

  router.put('/api/presets/:name', auth.require('admin'), body, async (req, res) => {
    res.status(200).json(await presets.put(req.params['name'] as string, req.body, identityOf(req)));
  });

  router.get('/api/presets/:name', auth.require('read'), async (req, res) => {
    res.json(await presets.get(req.params['name'] as string));
  });

  router.post('/api/presets/:name/ask', auth.require('write'), body, async (req, res) => {
    res.status(201).json(await presets.ask(req.params['name'] as string, req.body, identityOf(req)));
  });
  return router;
}
