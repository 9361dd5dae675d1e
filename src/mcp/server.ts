import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { type AskToolOptions, registerAskHuman } from './ask-tool.js';
import type { Asker } from 'askgate-sdk';

/** The name and version the server announces to MCP clients. */
export const SERVER_INFO = { name: 'askgate', version: '0.1.0' } as const;

/**
 * askgate's MCP server: the `ask_human` tool over a gateway client. The same server runs on stdio (`askgate mcp`,
 * a client of a running gateway) and over Streamable HTTP at `/mcp` (one server per session, asking as the
 * identity of the session's token).
 */
export function createAskgateMcpServer(client: Asker, options: AskToolOptions = {}): McpServer {
  const server = new McpServer(SERVER_INFO, {
    capabilities: { tools: {} },
    instructions:
      'askgate asks people questions. Call ask_human when only a person can decide or answer; it blocks until they do.',
  });
  registerAskHuman(server, client, options);
  return server;
}
