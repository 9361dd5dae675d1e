import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { postgresBinDir } from './postgres-server.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Runs once before any test: the suite needs a real redis-server, PostgreSQL and a real Chromium, and says how to get them
 * instead of failing later with a confusing error. Then it brings dist/ up to date with the sources: the
 * spawned-process and browser tests run dist/ while the in-process tests run the sources, so a stale dist/ would
 * test yesterday's askgate without saying so.
 */
export default function checkPrerequisites(): void {
  const missing: string[] = [];
  try {
    execFileSync(process.env['REDIS_SERVER_BIN'] ?? 'redis-server', ['--version'], { stdio: 'ignore' });
  } catch {
    missing.push(
      'redis-server was not found: install it with `apt-get install -y redis-server` (or set REDIS_SERVER_BIN)',
    );
  }
  if (postgresBinDir() === null) {
    missing.push(
      'PostgreSQL was not found: install it with `apt-get install -y postgresql` (or set POSTGRES_BIN_DIR to the directory holding initdb)',
    );
  }
  const chromium = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
  if (!existsSync(chromium)) {
    missing.push(
      `Chromium was not found at ${chromium}: install it with \`apt-get install -y chromium\` (or set CHROMIUM_PATH)`,
    );
  }
  if (missing.length > 0) {
    throw new Error(`askgate tests cannot run:\n- ${missing.join('\n- ')}`);
  }
  buildDist();
}

/**
 * `npm run build`: the two incremental compilations and the copy of the Lua scripts beside their loader. Modification
 * times cannot tell a stale dist/: the incremental compiler leaves an output untouched when its source was saved
 * without a change. Compiling is exact, and after `npm test`'s own pretest build it finds nothing to do in a few
 * seconds.
 */
function buildDist(): void {
  try {
    execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'pipe' });
  } catch (err) {
    const out = (err as { stdout?: Buffer }).stdout?.toString() ?? String(err);
    throw new Error(`askgate tests cannot run: the build of dist/ (npm run build) failed:\n${out}`);
  }
}
