import express, { Router, type Request, type Response } from 'express';
import type { ChannelCore, ChannelPlugin } from './contract.js';
import type { WebhookRequest, WebhookResponse, WebhookRoute } from './http.js';

/** 1 MiB: larger than any platform's webhook body, small enough that a flood of them costs little. */
const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/**
 * Every channel's doors on the gateway's express app: each declared webhook route, read as raw bytes and handed to
 * the channel's framework-free handler, and the optional express router of a channel that serves pages (the web
 * chat). Nothing here knows a channel by name, so adding one needs no gateway change.
 */
export function channelDoors(plugins: readonly ChannelPlugin[], core: ChannelCore): Router {
  const router = Router();
  for (const plugin of plugins) {
    for (const route of plugin.webhooks(core)) mountWebhook(router, route);
    if (plugin.router !== undefined) router.use(plugin.router(core));
  }
  return router;
}

function mountWebhook(router: Router, route: WebhookRoute): void {
  const handler = (req: Request, res: Response): Promise<void> =>
    route.handle(toWebhookRequest(req, route.method)).then((response) => send(res, response));
  if (route.method === 'GET') router.get(route.path, handler);
  else
    router.post(
      route.path,
      // The raw bytes, whatever the content type: a signature is over them, checked before anything parses them.
      express.raw({ type: () => true, limit: route.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES }),
      handler,
    );
}

function toWebhookRequest(req: Request, method: 'GET' | 'POST'): WebhookRequest {
  const url = req.originalUrl;
  const at = url.indexOf('?');
  const query: Record<string, string> = {};
  if (at !== -1) for (const [k, v] of new URLSearchParams(url.slice(at + 1))) if (!(k in query)) query[k] = v;
  return {
    method,
    path: at === -1 ? url : url.slice(0, at),
    query,
    headers: req.headers,
    rawBody: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0),
    url,
  };
}

function send(res: Response, response: WebhookResponse): void {
  res.status(response.status);
  for (const [name, value] of Object.entries(response.headers ?? {})) res.setHeader(name, value);
  const body = response.body;
  if (body === undefined) res.end();
  else if (typeof body === 'string' || Buffer.isBuffer(body)) {
    if (!res.hasHeader('content-type')) res.type('text/plain');
    res.send(body);
  } else res.json(body);
}
