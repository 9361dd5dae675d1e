import { Router } from 'express';
import type { Metrics } from '../observability/metrics.js';
import type { Store } from '../core/store-port.js';
import { STORE_RETRY_AFTER_SECONDS } from './error-status.js';

/** A second store readiness waits on: the PostgreSQL checkpointer (ASKGATE_CHECKPOINT_URL), when configured. */
export interface ReadinessCheck {
  /** What `/readyz` names it: `postgres`. */
  name: string;
  /** Resolves when it answers; rejects when it does not. */
  ping(): Promise<void>;
}

/** Public liveness, readiness (the store, and the checkpointer when it is another, answer) and Prometheus metrics. */
export function healthRouter(store: Store, metrics: Metrics, checkpointer: ReadinessCheck | null = null): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    try {
      await store.ping();
    } catch {
      res
        .status(503)
        .setHeader('Retry-After', String(STORE_RETRY_AFTER_SECONDS))
        .json({ error: 'store_unavailable', message: `the ${store.kind} store does not answer.`, store: store.kind });
      return;
    }
    if (checkpointer === null) {
      res.json({ status: 'ready', store: store.kind });
      return;
    }
    try {
      await checkpointer.ping();
      res.json({ status: 'ready', store: store.kind, checkpoint: checkpointer.name });
    } catch {
      res
        .status(503)
        .setHeader('Retry-After', String(STORE_RETRY_AFTER_SECONDS))
        .json({
          error: 'store_unavailable',
          message: `the ${checkpointer.name} checkpoint store (ASKGATE_CHECKPOINT_URL) does not answer.`,
          store: store.kind,
          checkpoint: checkpointer.name,
        });
    }
  });
  router.get('/metrics', async (_req, res) => {
    res.setHeader('Content-Type', metrics.registry.contentType);
    res.send(await metrics.registry.metrics());
  });
  return router;
}
