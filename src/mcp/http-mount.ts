import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import express, { type Request, type RequestHandler, type Response, Router } from 'express';
import { AskgateError } from '../core/errors.js';
import type { InteractionService } from '../core/interaction-service.js';
import { identityOf, type TokenAuthenticator } from '../doors/auth.js';
import type { PresetService } from '../confirmations/presets.js';
import type { Logger } from '../observability/logger.js';
import type { AskToolOptions } from './ask-tool.js';
import { BoundedEventStore } from './event-store.js';
import { planPresetTools, registerPresetTools } from './preset-tools.js';
import { createAskgateMcpServer } from './server.js';
import { serviceAsker, servicePresetDoor } from './service-asker.js';

/**
 * The `/mcp` door: askgate's MCP server over Streamable HTTP. A bearer token with the `write` and `answer` scopes
 * opens a session (`Mcp-Session-Id`); each session has its own server, asking through the gateway's service under
 * that token's identity (the asks are the token's own, exactly as through `POST /api/interactions`), and its own
 * event store, so a dropped stream resumes with `Last-Event-ID`. Every later request of a session must carry the
 * token that opened it.
 */

export const MCP_PATH = '/mcp';

export interface McpMountOptions extends AskToolOptions {
  auth: TokenAuthenticator;
  service: InteractionService;
  /** How long a session with no open response lives on. Default {@link MCP_SESSION_IDLE_MS}. */
  sessionIdleMs?: number;
  /**
   * The presets each session offers as tools (`ASKGATE_MCP_PRESETS`), read when the session opens: one that does
   * not exist or cannot be a tool is left out, logged with the reason.
   */
  presets?: { names: readonly string[]; service: PresetService; logger: Logger };
}

interface Session {
  transport: StreamableHTTPServerTransport;
  tokenHash: Buffer;
  /** Responses of this session still open (a tool call waiting for a person, an event stream). */
  open: number;
  /** When its last response closed (epoch ms). */
  lastSeen: number;
}

/**
 * A session with no open response for this long is ended (its server and its stored events freed): a client that went
 * away without DELETE would otherwise hold them for good. A client coming back after it gets 404 and initializes a new
 * session, as the protocol has it. Open sessions are capped, so unauthenticated-looking churn cannot exhaust memory.
 */
export const MCP_SESSION_IDLE_MS = 30 * 60_000;
export const MCP_MAX_SESSIONS = 1000;

const BEARER = /^Bearer\s+(\S+)\s*$/i;

function tokenHash(req: Request): Buffer {
  const token = BEARER.exec(req.headers.authorization ?? '')?.[1] ?? '';
  return createHash('sha256').update(token).digest();
}

/** The `/mcp` router; `close()` ends every open session (the gateway calls it on stop). */
export function mcpRouter(options: McpMountOptions): { router: Router; close(): Promise<void> } {
  const sessions = new Map<string, Session>();
  const router = Router();
  const handle: RequestHandler = async (req, res, next) => {
    try {
      const id = req.headers['mcp-session-id'];
      if (typeof id === 'string') {
        const session = sessions.get(id);
        // A session is its opener's: another token is told the same as for an unknown id, and learns nothing.
        if (session === undefined || !timingSafeEqual(session.tokenHash, tokenHash(req))) {
          res.status(404).json({
            error: 'not_found',
            message: 'Mcp-Session-Id names no open session of this token; initialize a new session.',
          });
          return;
        }
        track(session, res);
        await session.transport.handleRequest(req, res, req.body);
        return;
      }
      if (sessions.size >= MCP_MAX_SESSIONS) {
        throw new AskgateError(
          'rate_limited',
          `this gateway holds ${MCP_MAX_SESSIONS} MCP sessions already; close one (DELETE /mcp) or retry once idle ones end.`,
          { extra: { retry_after: 60 } },
        );
      }
      if (req.method !== 'POST' || !isInitializeRequest(req.body)) {
        throw new AskgateError(
          'invalid_request',
          'Mcp-Session-Id is required; open a session with an initialize request first.',
          { field: 'Mcp-Session-Id' },
        );
      }
      const identity = identityOf(req);
      const asker = serviceAsker(options.service, identity);
      const server = createAskgateMcpServer(asker, options);
      const presets = options.presets;
      if (presets !== undefined && presets.names.length > 0) {
        const door = servicePresetDoor(presets.service, identity);
        const plans = await planPresetTools(door, presets.names);
        for (const plan of plans)
          if (!plan.offered)
            presets.logger.warn({ preset: plan.name, reason: plan.reason }, 'preset not offered as an MCP tool');
        registerPresetTools(server, asker, door, plans, options);
      }
      const hash = tokenHash(req);
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        eventStore: new BoundedEventStore(),
        onsessioninitialized: (sessionId) => {
          const session: Session = { transport, tokenHash: hash, open: 0, lastSeen: Date.now() };
          sessions.set(sessionId, session);
          track(session, res);
        },
      });
      transport.onclose = () => {
        if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
      };
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    } catch (error) {
      next(error);
    }
  };
  /** Counts the response as open until it closes, so a session waiting on a person is never idle. */
  function track(session: Session, res: Response): void {
    session.open += 1;
    res.once('close', () => {
      session.open -= 1;
      session.lastSeen = Date.now();
    });
  }
  const idleMs = options.sessionIdleMs ?? MCP_SESSION_IDLE_MS;
  const sweeper = setInterval(
    () => {
      const now = Date.now();
      for (const [id, session] of sessions) {
        if (session.open > 0 || now - session.lastSeen < idleMs) continue;
        sessions.delete(id);
        void session.transport.close().catch(() => undefined);
      }
    },
    Math.min(60_000, idleMs),
  );
  sweeper.unref();
  router.all(
    MCP_PATH,
    options.auth.require('write'),
    options.auth.require('answer'),
    express.json({ limit: '1mb' }),
    handle,
  );
  return {
    router,
    async close() {
      clearInterval(sweeper);
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.all(open.map((s) => s.transport.close()));
    },
  };
}
