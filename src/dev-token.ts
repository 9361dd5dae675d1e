import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

type Env = Record<string, string | undefined>;

/** Where dev mode keeps its token between restarts: `$XDG_STATE_HOME/askgate/dev-token` (default `~/.local/state`). */
export function devTokenPath(env: Env): string {
  const state = env['XDG_STATE_HOME'] || join(env['HOME'] || homedir(), '.local', 'state');
  return join(state, 'askgate', 'dev-token');
}

/**
 * The dev token a restarted gateway keeps, so an open inbox tab and an exported ASKGATE_TOKEN go on working: read
 * from the state file, or made and written there (mode 600: it holds every scope). When the file cannot be
 * written the token lasts this run only, and `persisted` says so.
 */
export function persistentDevToken(env: Env): { token: string; path: string; persisted: boolean } {
  const path = devTokenPath(env);
  try {
    const kept = readFileSync(path, 'utf8').trim();
    if (/^[A-Za-z0-9_-]{16,}$/.test(kept)) return { token: kept, path, persisted: true };
  } catch {
    // no file yet (or unreadable): make one below
  }
  const token = randomBytes(24).toString('base64url');
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    writeFileSync(path, `${token}\n`, { mode: 0o600 });
    chmodSync(path, 0o600); // an existing file keeps its mode on write
    return { token, path, persisted: true };
  } catch {
    return { token, path, persisted: false };
  }
}
