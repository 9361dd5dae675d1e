import { Agent, request } from 'node:http';

/**
 * A lean keep-alive HTTP client for load: node:http rather than fetch, because the load generator shares two cores
 * with the servers it measures and fetch costs several times more CPU per request; whatever the client costs is
 * paid equally by askgate and its baseline, but a cheaper client caps neither.
 */
export class HttpClient {
  private readonly agent: Agent;

  constructor(
    private readonly base: string,
    private readonly token: string | null,
    maxSockets: number,
  ) {
    this.agent = new Agent({ keepAlive: true, maxSockets });
  }

  send(method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
    return this.sendOnce(method, path, body).catch((error: unknown) => {
      // A kept-alive socket the server closed as idle (its keep-alive timeout, 5 s) just as this request took it:
      // the server never read the request, so it is sent again on a fresh socket (Node's documented remedy).
      if (error instanceof StaleSocketError) return this.sendOnce(method, path, body);
      throw error;
    });
  }

  private sendOnce(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; json: Record<string, unknown> }> {
    const payload = body === undefined ? null : JSON.stringify(body);
    const url = new URL(path, this.base);
    const headers: Record<string, string> = {};
    if (payload !== null) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(Buffer.byteLength(payload));
    }
    if (this.token !== null) headers['authorization'] = `Bearer ${this.token}`;
    return new Promise((resolve, reject) => {
      const req = request(
        { host: url.hostname, port: url.port, path: url.pathname + url.search, method, headers, agent: this.agent },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const raw = Buffer.concat(chunks).toString('utf8');
            let json: Record<string, unknown> = {};
            try {
              json = raw === '' ? {} : (JSON.parse(raw) as Record<string, unknown>);
            } catch {
              json = { raw };
            }
            resolve({ status: res.statusCode ?? 0, json });
          });
          res.on('error', reject);
        },
      );
      req.on('error', (error: NodeJS.ErrnoException) => {
        if (req.reusedSocket && error.code === 'ECONNRESET') reject(new StaleSocketError(error.message));
        else reject(error);
      });
      req.end(payload ?? undefined);
    });
  }

  /** Like send, but a status other than `expect` is an error: a benchmark must never count a refusal as work done. */
  async expect(expect: number, method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
    const res = await this.send(method, path, body);
    if (res.status !== expect)
      throw new Error(
        `${method} ${path} answered ${res.status}, expected ${expect}: ${JSON.stringify(res.json).slice(0, 300)}`,
      );
    return res.json;
  }

  close(): void {
    this.agent.destroy();
  }
}

/** A request that failed because its reused keep-alive socket had been closed by the server. */
class StaleSocketError extends Error {}
