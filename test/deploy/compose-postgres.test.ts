import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config.js';

/** The compose file's `postgres` profile and the URL askgate.env.example suggests for it agree, and askgate takes it. */

interface Service {
  image?: string;
  profiles?: string[];
  environment?: Record<string, string>;
}

const compose = parse(readFileSync('docker-compose.yml', 'utf8')) as {
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
};

describe('docker-compose.yml offers PostgreSQL checkpoints', () => {
  it('runs PostgreSQL 13+ only under the postgres profile, on a volume of its own', () => {
    const postgres = compose.services['postgres'];
    expect(postgres?.profiles).toEqual(['postgres']);
    expect(Number(/^postgres:(\d+)/.exec(postgres?.image ?? '')?.[1])).toBeGreaterThanOrEqual(13);
    expect(Object.keys(compose.volumes)).toContain('postgres-data');
  });

  it("suggests, in askgate.env.example, the URL of that service, which askgate accepts beside the gateway's Redis", () => {
    const line = /^# ASKGATE_CHECKPOINT_URL=(.*)$/m.exec(readFileSync('askgate.env.example', 'utf8'))?.[1];
    const env = compose.services['postgres']?.environment ?? {};
    expect(line).toBe(
      `postgres://${env['POSTGRES_USER']}:${env['POSTGRES_PASSWORD']}@postgres:5432/${env['POSTGRES_DB']}`,
    );
    const config = loadConfig({ REDIS_URL: 'redis://redis:6379', ASKGATE_CHECKPOINT_URL: line });
    expect(config.checkpointPostgres).toEqual({
      url: 'postgres://askgate:askgate@postgres:5432/askgate',
      schema: 'askgate',
      statementTimeoutMs: 5000,
      poolSize: 10,
    });
  });
});
