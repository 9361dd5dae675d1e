import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/redis-server.js';
import { startPostgresServer, type PostgresServerHandle } from '../helpers/postgres-server.js';

/**
 * `askgate migrate` as a real process (the built dist/) against a real PostgreSQL. `npm test` builds first (pretest);
 * run `npx tsc -p tsconfig.json` before running this file alone.
 */

const CLI = join(process.cwd(), 'dist/src/cli/main.js');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(env: Record<string, string>): Promise<Run> {
  const clean: NodeJS.ProcessEnv = { PATH: process.env['PATH'] ?? '', NO_COLOR: '1', ...env };
  const child = spawn(process.execPath, [CLI, 'migrate'], { env: clean, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

describe('askgate migrate', () => {
  let server: PostgresServerHandle;
  let url: string;
  beforeAll(async () => {
    if (!existsSync(CLI))
      throw new Error(`${CLI} is missing: run \`npx tsc -p tsconfig.json\` (npm test does it in pretest).`);
    server = await startPostgresServer();
    // A password in the URL (trust authentication ignores it) shows that no output ever carries it.
    url = server.url.replace('postgres@', 'postgres:pw-never-shown@');
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('migrates once when six run at once, each saying what it did, and never shows the password', async () => {
    const runs = await Promise.all(Array.from({ length: 6 }, () => run({ ASKGATE_CHECKPOINT_URL: url })));
    expect(runs.map((r) => r.code)).toEqual([0, 0, 0, 0, 0, 0]);
    const where = `schema "askgate" at postgres://postgres:***@127.0.0.1:${server.port}/postgres`;
    expect(runs.map((r) => r.stdout).sort()).toEqual([
      `checkpoint ${where} is at version 1: nothing to do\n`,
      `checkpoint ${where} is at version 1: nothing to do\n`,
      `checkpoint ${where} is at version 1: nothing to do\n`,
      `checkpoint ${where} is at version 1: nothing to do\n`,
      `checkpoint ${where} is at version 1: nothing to do\n`,
      `checkpoint ${where} migrated from version 0 to 1\n`,
    ]);
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    try {
      expect((await client.query('SELECT version FROM askgate.schema_migrations')).rows).toEqual([{ version: 1 }]);
      await client.query(`INSERT INTO askgate.schema_migrations (version, name) VALUES (7, 'newer')`);
    } finally {
      await client.end();
    }
    const newer = await run({ ASKGATE_CHECKPOINT_URL: url });
    expect(newer.code).toBe(1);
    expect(newer.stderr).toMatch(
      /^askgate: bad configuration: ASKGATE_CHECKPOINT_URL: the checkpoint schema "askgate" is at version 7, newer than this askgate knows \(1\)/,
    );
  });

  it('refuses without ASKGATE_CHECKPOINT_URL, or with a bad one, in one line naming the variable', async () => {
    expect(await run({})).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'askgate: bad configuration: ASKGATE_CHECKPOINT_URL: is unset, so checkpoints are kept in Redis and there ' +
        'is nothing to migrate; set it to postgres://user:password@host:5432/database.\n',
    });
    const bad = await run({ ASKGATE_CHECKPOINT_URL: url, ASKGATE_CHECKPOINT_SCHEMA: 'Bad-Name' });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(
      /^askgate: bad configuration: ASKGATE_CHECKPOINT_SCHEMA: "Bad-Name" is not a schema name/,
    );
  });

  it('fails in one line naming the variable when the database cannot be reached', async () => {
    const nowhere = `postgres://postgres:pw-never-shown@127.0.0.1:${await freePort()}/postgres`;
    const refused = await run({ ASKGATE_CHECKPOINT_URL: nowhere });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^askgate: cannot migrate the checkpoint schema \(ASKGATE_CHECKPOINT_URL\): connect ECONNREFUSED 127\.0\.0\.1:\d+\n$/,
    );
    expect(refused.stderr).not.toContain('pw-never-shown');
  });
});
