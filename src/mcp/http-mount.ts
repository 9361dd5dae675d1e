import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import express, { type Request, type RequestHandler, Router } from 'express';
import { AskgateError } from '../core/errors.js';
import type { InteractionService } from '../core/interaction-service.js';
import { identityOf, type TokenAuthenticator } from '../doors/auth.js';
import type { AskToolOptions } from './ask-tool.js';
import { BoundedEventStore } from './event-store.js';
import { createAskgateMcpServer } from './server.js';
import { serviceAsker } from './service-asker.js';

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
}

interface Session {
  transport: StreamableHTTPServerTransport;
  tokenHash: Buffer;
}

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
        await session.transport.handleRequest(req, res, req.body);
        return;
      }
      if (req.method !== 'POST' || !isInitializeRequest(req.body)) {
        throw new AskgateError(
          'invalid_request',
          'Mcp-Session-Id is required; open a session with an initialize request first.',
          { field: 'Mcp-Session-Id' },
        );
      }
      const server = createAskgateMcpServer(serviceAsker(options.service, identityOf(req)), options);
      const hash = tokenHash(req);
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        eventStore: new BoundedEventStore(),
        onsessioninitialized: (sessionId) => {
          sessions.set(sessionId, { transport, tokenHash: hash });
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
  router.all(MCP_PATH, options.auth.require('write'), options.auth.require('answer'), express.json(), handle);
  return {
    router,
    async close() {
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.all(open.map((s) => s.transport.close()));
    },
  };
}
