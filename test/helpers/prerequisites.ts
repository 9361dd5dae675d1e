import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/**
 * Runs once before any test: the suite needs a real redis-server and a real Chromium, and says how to get them
 * instead of failing later with a confusing error.
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
  const chromium = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
  if (!existsSync(chromium)) {
    missing.push(
      `Chromium was not found at ${chromium}: install it with \`apt-get install -y chromium\` (or set CHROMIUM_PATH)`,
    );
  }
  if (missing.length > 0) {
    throw new Error(`askgate tests cannot run:\n- ${missing.join('\n- ')}`);
  }
}
