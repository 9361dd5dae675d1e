import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const CLI = `${ROOT}dist/src/cli/main.js`;
const MAIN = `${ROOT}dist/src/main.js`;

export interface GatewayProcess {
  child: ChildProcess;
  /** Base URL, once the process printed `askgate listening on ...` (null for a worker). */
  url: string | null;
  /** Everything printed so far. */
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Starts the built gateway as a real process (`askgate serve`, `askgate worker`, or `npm start`'s entry) and waits
 * until it says it is up. The suite's `pretest` builds dist/ first.
 */
export async function spawnGateway(
  role: 'serve' | 'worker' | 'all',
  env: Record<string, string>,
): Promise<GatewayProcess> {
  const args = role === 'all' ? [MAIN] : [CLI, role];
  const child = spawn(process.execPath, args, {
    env: {
      PATH: process.env['PATH'] ?? '',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      // The suite's webhook receivers listen on 127.0.0.1; a test of the outbound pin passes it as ''.
      ASKGATE_WEBHOOK_ALLOW_PRIVATE: '1',
      // Dev mode keeps its token under the state directory: a fresh one per process keeps tests off the user's.
      XDG_STATE_HOME: mkdtempSync(join(tmpdir(), 'askgate-state-')),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const ready = role === 'worker' ? /askgate worker started/ : /askgate listening on (http:\/\/\S+)/;
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`askgate ${role} did not start in 60 s:\n${out}`)), 60_000);
    const check = (): void => {
      const m = ready.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m);
      }
    };
    child.stdout?.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`askgate ${role} exited with ${code}:\n${out}`));
    });
  });
  return {
    child,
    url: match[1] ?? null,
    output: () => out,
    stop(signal = 'SIGTERM') {
      // A child ended by a signal has no exit code, only a signal code: it has exited all the same.
      if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
      return new Promise((resolve) => {
        child.once('exit', (code) => resolve(code));
        child.kill(signal);
      });
    },
  };
}
