import { Router } from 'express';
import type { EventHub } from '../core/event-hub.js';
import type { OperatorSignals } from '../core/operator-signals.js';
import { identityOf, type TokenAuthenticator } from './auth.js';

/** Comment lines keep idle proxies from closing the stream. */
const HEARTBEAT_MS = 15_000;

/**
 * `GET /api/interactions/stream`: Server-Sent Events, tail only — what happens from the moment of connecting.
 * Each event is serialized once by the hub, whatever the number of subscribers. A token with the `admin` scope also
 * hears the operator signals (`confirmation.*`: an unserved reconcile run, a failed bridge job), which are the
 * operator's business as the doors that list and retry them are.
 */
export function streamRouter(
  hub: EventHub,
  auth: TokenAuthenticator,
  signals: OperatorSignals,
  heartbeatMs = HEARTBEAT_MS,
): Router {
  const router = Router();
  router.get('/api/interactions/stream', auth.require('read'), (req, res) => {
    res.status(200);
    res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    res.setHeader('Cache-Control', 'no-cache, no-transform');
    res.setHeader('Connection', 'keep-alive');
    res.setHeader('X-Accel-Buffering', 'no');
    res.flushHeaders();
    const unlisten = hub.listen((event) => {
      res.write(`event: ${event.type}\nid: ${event.record.id}\ndata: ${event.json}\n\n`);
    });
    const admin = identityOf(req).scopes.has('admin');
    const unlistenSignals = admin
      ? signals.listen((signal) => res.write(`event: ${signal.type}\ndata: ${JSON.stringify(signal.data)}\n\n`))
      : () => undefined;
    // "connected" once the store hears every event (it may start listening with this client): the tail starts here.
    Promise.all([hub.ready(), admin ? signals.ready() : undefined]).then(
      () => res.write(': connected\n\n'),
      () => res.end(),
    );
    const heartbeat = setInterval(() => res.write(': ping\n\n'), heartbeatMs);
    heartbeat.unref();
    req.on('close', () => {
      clearInterval(heartbeat);
      unlisten();
      unlistenSignals();
    });
  });
  return router;
}
