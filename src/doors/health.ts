import { Router } from 'express';
import type { Metrics } from '../observability/metrics.js';
import type { Store } from '../core/store-port.js';
import { STORE_RETRY_AFTER_SECONDS } from './error-status.js';

/** Public liveness, readiness (the store answers) and Prometheus metrics. */
export function healthRouter(store: Store, metrics: Metrics): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    try {
      await store.ping();
      res.json({ status: 'ready', store: store.kind });
    } catch {
      res
        .status(503)
        .setHeader('Retry-After', String(STORE_RETRY_AFTER_SECONDS))
        .json({ error: 'store_unavailable', message: `the ${store.kind} store does not answer.`, store: store.kind });
    }
  });
  router.get('/metrics', async (_req, res) => {
    res.setHeader('Content-Type', metrics.registry.contentType);
    res.send(await metrics.registry.metrics());
  });
  return router;
}
