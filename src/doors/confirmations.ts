import { jsonBody } from './json-body.js';
import { Router } from 'express';
import type { Confirmations } from '../confirmations/wiring.js';
import { invalid } from '../core/errors.js';
import type { JsonSchema } from '../core/types.js';
import type { TokenAuthenticator } from './auth.js';

/** At most a little over a year back: Stripe lists sessions for far longer, but a run that long is a mistake. */
const MAX_LOOKBACK_HOURS = 24 * 400;

/** The reconcile door's body as JSON Schema, from the limit `lookbackOf` applies: `{"lookback_hours"?: N}` or none. */
export function reconcileBodySchema(): JsonSchema {
  return {
    type: 'object',
    additionalProperties: false,
    properties: {
      lookback_hours: {
        type: 'number',
        exclusiveMinimum: 0,
        maximum: MAX_LOOKBACK_HOURS,
        description: 'How far back to look for completed confirmations; default the configured lookback.',
      },
    },
  };
}

function lookbackOf(body: unknown): number | undefined {
  if (body === undefined || body === null || (typeof body === 'object' && Object.keys(body).length === 0))
    return undefined;
  if (typeof body !== 'object' || Array.isArray(body)) throw invalid('body', 'send {"lookback_hours"?: N} or nothing.');
  const extra = Object.keys(body).find((k) => k !== 'lookback_hours');
  if (extra !== undefined) throw invalid(extra, `${extra} is not a reconcile field; send {"lookback_hours"?: N}.`);
  const hours = (body as { lookback_hours: unknown }).lookback_hours;
  if (typeof hours !== 'number' || !Number.isFinite(hours) || hours <= 0 || hours > MAX_LOOKBACK_HOURS)
    throw invalid(
      'lookback_hours',
      `lookback_hours must be a number of hours above 0 and at most ${MAX_LOOKBACK_HOURS}.`,
    );
  return hours;
}

/**
 * The operator doors of confirmations, all `admin`: `POST /api/confirmations/reconcile` (one run now → the
 * summary), `GET /api/confirmations/failed` (bridge jobs kept as failed), `POST
 * /api/confirmations/failed/{job}/retry` (try one again with a fresh ladder).
 */
export function confirmationsRouter(confirmations: Confirmations, auth: TokenAuthenticator): Router {
  const router = Router();
  const body = jsonBody('64kb');

  router.post('/api/confirmations/reconcile', auth.require('admin'), body, async (req, res) => {
    res.json(await confirmations.reconcile(lookbackOf(req.body)));
  });

  router.get('/api/confirmations/failed', auth.require('admin'), async (_req, res) => {
    res.json({ items: await confirmations.listFailed() });
  });

  router.post('/api/confirmations/failed/:job/retry', auth.require('admin'), async (req, res) => {
    await confirmations.retry(req.params['job'] as string);
    res.json({ status: 'retrying', job: req.params['job'] });
  });
  return router;
}
