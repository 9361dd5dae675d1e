import { spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import type { ElicitRequestParams } from '@modelcontextprotocol/sdk/types.js';
import { type AskgateClient, type ElicitationRoute, ElicitationRefusedError, elicitThroughAsk } from 'askgate-sdk';

/**
 * `askgate mcp-proxy`: stands between an MCP client and a stdio MCP server it starts. Every message passes both
 * ways as the same bytes, with two exceptions: the client's `initialize` request gains the elicitation capability
 * (form and URL mode), so the server may elicit; and an `elicitation/create` the client could not show itself (it
 * declared no elicitation capability for that mode) is answered through askgate and never reaches the client. An
 * elicitation the client can show goes to the client, untouched.
 */

export interface ProxyOptions {
  command: string;
  args: readonly string[];
  client: AskgateClient;
  route: ElicitationRoute;
  /** Answer every elicitation through askgate, even one the client could show. Default false. */
  askAlways?: boolean;
  /** The client's side of the pipes (process.stdin / process.stdout for the command). */
  input: Readable;
  output: Writable;
  /** Where the proxy's own warnings go (process.stderr for the command). */
  log?: (line: string) => void;
}

type Message = Record<string, unknown>;
type Mode = 'form' | 'url';

/** Splits a byte stream at newlines, handing each line on as the exact bytes it arrived as (without the newline). */
function lines(stream: Readable, onLine: (line: Buffer) => void): void {
  let pending: Buffer = Buffer.alloc(0);
  stream.on('data', (chunk: Buffer) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    let at = pending.indexOf(0x0a);
    while (at !== -1) {
      onLine(pending.subarray(0, at));
      pending = pending.subarray(at + 1);
      at = pending.indexOf(0x0a);
    }
  });
}

/** Parses a line that mentions `needle`; any other line is never parsed, so it cannot be changed. */
function parseIfMentions(line: Buffer, needle: string): Message | null {
  if (!line.includes(needle)) return null;
  try {
    const parsed: unknown = JSON.parse(line.toString('utf8'));
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Message) : null;
  } catch {
    return null;
  }
}

const isRecord = (v: unknown): v is Message => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A running proxy: `exited` resolves with the server's exit code; `shutdown()` ends it as a client leaving does. */
export interface RunningProxy {
  exited: Promise<number>;
  shutdown(): void;
}

/** Starts the server behind the proxy and relays until the server exits. */
export function startElicitationProxy(options: ProxyOptions): RunningProxy {
  const log = options.log ?? (() => undefined);
  const child = spawn(options.command, [...options.args], { stdio: ['pipe', 'pipe', 'inherit'] });
  const toServer = child.stdin;
  /** What the client said it can show: null until its initialize passed. */
  let clientModes: Set<Mode> | null = null;
  const inFlight = new Map<string, { controller: AbortController; done: Promise<void> }>();
  const idKey = (id: unknown): string => JSON.stringify(id);

  const sendToServer = (message: Message): void => {
    if (!toServer.destroyed) toServer.write(`${JSON.stringify(message)}\n`);
  };

  lines(options.input, (line) => {
    const message = parseIfMentions(line, '"initialize"');
    if (message !== null && message['method'] === 'initialize' && isRecord(message['params'])) {
      const params = message['params'];
      const capabilities = isRecord(params['capabilities']) ? params['capabilities'] : {};
      const own = capabilities['elicitation'];
      clientModes = new Set<Mode>();
      if (isRecord(own)) {
        // An empty elicitation capability is form mode (the specification's backwards-compatible reading).
        if (Object.keys(own).length === 0 || 'form' in own) clientModes.add('form');
        if ('url' in own) clientModes.add('url');
      }
      const elicitation = { ...(isRecord(own) ? own : {}), form: {}, url: {} };
      sendToServer({ ...message, params: { ...params, capabilities: { ...capabilities, elicitation } } });
      return;
    }
    toServer.write(Buffer.concat([line, Buffer.from('\n')]));
  });

  lines(child.stdout, (line) => {
    const message = parseIfMentions(line, '"elicitation/create"') ?? parseIfMentions(line, '"notifications/cancelled"');
    if (message !== null && message['method'] === 'notifications/cancelled' && isRecord(message['params'])) {
      const controller = inFlight.get(idKey(message['params']['requestId']))?.controller;
      if (controller !== undefined) {
        controller.abort(new Error('the server cancelled the elicitation'));
        return;
      }
    }
    if (message !== null && message['method'] === 'elicitation/create' && message['id'] !== undefined) {
      const params = (isRecord(message['params']) ? message['params'] : {}) as ElicitRequestParams;
      const mode: Mode = params.mode === 'url' ? 'url' : 'form';
      if (options.askAlways === true || !(clientModes?.has(mode) ?? false)) {
        answer(message['id'], params);
        return;
      }
    }
    options.output.write(Buffer.concat([line, Buffer.from('\n')]));
  });

  function answer(id: unknown, params: ElicitRequestParams): void {
    const controller = new AbortController();
    const done = elicitThroughAsk(options.client, params, { ...options.route, signal: controller.signal })
      .then((result) => sendToServer({ jsonrpc: '2.0', id, result }))
      .catch((error: unknown) => {
        if (controller.signal.aborted) {
          // The server withdrew it (no answer is owed) or the client went away (the server is being stopped).
          return;
        }
        if (error instanceof ElicitationRefusedError) {
          const data = error.property === undefined ? undefined : { property: error.property };
          sendToServer({ jsonrpc: '2.0', id, error: { code: error.code, message: error.message, data } });
          return;
        }
        const reason = error instanceof Error ? error.message : String(error);
        log(`askgate mcp-proxy: elicitation failed: ${reason}`);
        sendToServer({ jsonrpc: '2.0', id, error: { code: -32603, message: `askgate could not ask: ${reason}` } });
      })
      .finally(() => inFlight.delete(idKey(id)));
    inFlight.set(idKey(id), { controller, done });
  }

  // The client went away: withdraw every question still out (a late answer is told 410), then stop the server.
  let stopping = false;
  const shutdown = (): void => {
    if (stopping) return;
    stopping = true;
    const open = [...inFlight.values()];
    for (const { controller } of open) controller.abort(new Error('the client disconnected'));
    void Promise.allSettled(open.map((o) => o.done)).then(() => toServer.end());
  };
  options.input.once('end', shutdown);
  // A server that stopped reading is not worth a crash: its exit ends the proxy.
  toServer.on('error', () => undefined);
  const exited = new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      const open = [...inFlight.values()];
      for (const { controller } of open) controller.abort(new Error('the server exited'));
      void Promise.allSettled(open.map((o) => o.done)).then(() => resolve(code ?? (signal === null ? 0 : 1)));
    });
  });
  return { exited, shutdown };
}
