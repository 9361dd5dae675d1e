import { Router, raw } from 'express';
import type { Confirmations } from '../confirmations/wiring.js';

/**
 * The providers' signed-event doors (`POST /webhooks/stripe`, one per provider at its `ingressPath`). Public:
 * the signature is the authentication, checked over the raw bytes before anything else (src/confirmations/ingress.ts).
 */
export function providerIngressRouter(confirmations: Confirmations): Router {
  const router = Router();
  // Raw bytes: the signature is over exactly what was sent. No inflation, so 1 MiB is 1 MiB on the wire.
  const rawBody = raw({ type: () => true, limit: '1mb', inflate: false });
  for (const provider of confirmations.providers.values()) {
    router.post(provider.ingressPath, rawBody, async (req, res) => {
      const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      res.status(200).json(await confirmations.ingest(provider, body, req.headers));
    });
  }
  return router;
}
