import express, { type Express } from 'express';
import type { ChannelCore, ChannelPlugin } from '../../channels/contract.js';
import { channelDoors } from '../../channels/mount.js';
import type { Config } from '../config.js';
import type { Confirmations } from '../confirmations/wiring.js';
import type { ActionLinks } from '../core/action-links.js';
import type { EventHub } from '../core/event-hub.js';
import type { InteractionService } from '../core/interaction-service.js';
import type { CallbackService } from '../core/callback-service.js';
import type { OperatorSignals } from '../core/operator-signals.js';
import { actionLinkRouter } from '../doors/action-link.js';
import { ANSWER_PATH, answerDoor, apiRouter } from '../doors/api.js';
import type { TokenAuthenticator } from '../doors/auth.js';
import { callbackRouter } from '../doors/callback.js';
import { confirmationsRouter } from '../doors/confirmations.js';
import { continuationsRouter } from '../doors/continuations.js';
import { errorHandler } from '../doors/error-status.js';
import { healthRouter, type ReadinessCheck } from '../doors/health.js';
import { inboxRouter } from '../doors/inbox.js';
import { landingRouter } from '../doors/landing.js';
import { openApiRouter } from '../doors/openapi.js';
import { presetsRouter } from '../doors/presets.js';
import { requestLog } from '../doors/request-log.js';
import { runsRouter } from '../doors/runs.js';
import { streamRouter } from '../doors/stream.js';
import { providerIngressRouter } from '../doors/stripe-ingress.js';
import { mcpRouter } from '../mcp/http-mount.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { HandlerClaims } from '../runs/handler-claims.js';
import type { ParkService } from '../runs/park-service.js';
import type { Store } from '../store/store.js';

/**
 * The composition root's HTTP side: every express door in the order it is matched, from the parts gateway.ts built.
 * Apart from the channel, store and checkpoint wiring so each reads on its own; only gateway.ts imports it. The
 * plain answer and ask requests are served ahead of express (gateway.ts's listen, src/doors/fast-door.ts).
 */

/** The built parts the doors serve. */
export interface HttpParts {
  config: Config;
  logger: Logger;
  auth: TokenAuthenticator;
  store: Store;
  hub: EventHub;
  metrics: Metrics;
  signals: OperatorSignals;
  service: InteractionService;
  callbacks: CallbackService;
  /** The park side; null where async asks are refused. */
  parks: ParkService | null;
  /** Handler workers' continuation claims; null without a durable park side. */
  claims: HandlerClaims | null;
  confirmations: Confirmations;
  /** The checkpoint store's readiness (PostgreSQL), or null. */
  readiness: ReadinessCheck | null;
  plugins: readonly ChannelPlugin[];
  /** The registered channels' names, for the landing page. */
  channelNames: string[];
  core: ChannelCore;
  links: ActionLinks | null;
}

/** The express app of every door, and the MCP mount (closed with the gateway). */
export function httpApp(parts: HttpParts): { app: Express; mcp: ReturnType<typeof mcpRouter> } {
  const { config, logger, auth, store, hub, metrics, signals, service, callbacks, claims, confirmations } = parts;
  const { plugins, core, links } = parts;
  const app = express();
  app.disable('x-powered-by');
  if (config.trustProxy !== null) app.set('trust proxy', config.trustProxy);
  app.use(requestLog(logger));
  app.post(ANSWER_PATH, ...answerDoor(service, auth));
  app.use(healthRouter(store, metrics, parts.readiness));
  app.use(streamRouter(hub, auth, signals));
  app.use(apiRouter(service, auth));
  app.use(runsRouter(service, parts.parks, auth));
  app.use(continuationsRouter(claims, auth));
  app.use(presetsRouter(confirmations.presets, auth));
  app.use(confirmationsRouter(confirmations, auth));
  app.use(providerIngressRouter(confirmations));
  // The MCP server over Streamable HTTP: each session asks through the service as its token's identity.
  const mcp = mcpRouter({
    auth,
    service,
    progressSeconds: config.mcpProgressSeconds,
    presets: { names: config.mcpPresets, service: confirmations.presets, logger },
  });
  app.use(mcp.router);
  app.use(inboxRouter());
  app.use(landingRouter({ store: store.kind, channels: parts.channelNames }));
  app.use(openApiRouter());
  // Every channel's declared webhooks (and, for web, its page and API) verify their own requests; before the 404.
  app.use(channelDoors(plugins, core));
  app.use(
    actionLinkRouter({
      links,
      store,
      dispatch: (action) => core.dispatch(action),
      rate: config.callbackRate,
      publicBaseUrl: config.publicBaseUrl,
    }),
  );
  app.use(callbackRouter({ callbacks, store, rate: config.callbackRate }));
  app.use((_req, res) => {
    res.status(404).json({
      error: 'not_found',
      message: 'no such door; GET / lists what this gateway serves, and docs/doors.md every HTTP door.',
    });
  });
  app.use(errorHandler(logger));
  return { app, mcp };
}
