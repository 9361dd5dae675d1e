import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config.js';

/**
 * docker-compose.yml and the Dockerfile as a user runs them: one image built once, every askgate process fed the
 * same env file, and each container's configuration accepted by askgate itself (no dev mode on 0.0.0.0).
 */

const ROOT = process.cwd();

interface Service {
  build?: unknown;
  image?: string;
  command?: string[];
  env_file?: string | string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, unknown>;
}

const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8')) as { services: Record<string, Service> };
const { gateway, worker } = compose.services as { gateway: Service; worker: Service };

/** KEY=VALUE lines, as docker compose reads an env_file (comments and blank lines skipped). */
function envFile(path: string): Record<string, string> {
  const entries = readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.trimStart().startsWith('#'))
    .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)] as const);
  return Object.fromEntries(entries);
}

/** askgate.env.example as a user leaves it after its one required edit: the placeholder token replaced. */
function editedExample(): Record<string, string> {
  const example = envFile(join(ROOT, 'askgate.env.example'));
  const tokens = (example['ASKGATE_TOKENS'] ?? '').replace(
    'change-me-to-a-long-random-token',
    'ops-token-0123456789abcdef',
  );
  return { ...example, ASKGATE_TOKENS: tokens };
}

describe('docker-compose.yml', () => {
  it('builds one image once and runs the gateway and the worker from it, without installing at start', () => {
    expect(gateway.build).toBeDefined();
    expect(worker.build).toBeUndefined();
    expect(worker.image).toBe(gateway.image);
    expect(gateway.command).toEqual(['serve']);
    expect(worker.command).toEqual(['worker']);
    for (const service of Object.values(compose.services))
      expect(JSON.stringify(service)).not.toMatch(/npm (ci|install)/);
  });

  it('gives both processes the same env file, and the example file, its token replaced, yields a configuration askgate accepts', () => {
    expect(gateway.env_file).toBe('askgate.env');
    expect(worker.env_file).toBe('askgate.env');
    // Unedited, it is refused: its placeholder token is publicly known.
    expect(() => loadConfig({ ...envFile(join(ROOT, 'askgate.env.example')), ...gateway.environment })).toThrow(
      /ASKGATE_TOKENS: entry 1: is the placeholder of askgate\.env\.example/,
    );
    const example = editedExample();
    for (const service of [gateway, worker]) {
      const config = loadConfig({ ...example, ...service.environment, PORT: '0' });
      expect(config.devToken).toBeNull();
      expect(config.redisUrl).toBe('redis://redis:6379');
      expect(config.publicBaseUrl).not.toBeNull();
    }
    expect(gateway.environment?.['HOST']).toBe('0.0.0.0');
  });

  it('would refuse to start the gateway in dev mode: without ASKGATE_TOKENS its configuration is an error', () => {
    const { ASKGATE_TOKENS: _dropped, ...rest } = envFile(join(ROOT, 'askgate.env.example'));
    expect(() => loadConfig({ ...rest, ...gateway.environment })).toThrow(/ASKGATE_TOKENS: is unset/);
  });
});

describe('Dockerfile', () => {
  const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
  const stages = dockerfile.split(/^FROM /m).slice(1);

  it('builds in one stage and runs from another that holds no sources, tests or dev dependencies', () => {
    expect(stages).toHaveLength(2);
    const run = stages[1] as string;
    expect(run).toMatch(/COPY --from=build \/app\/dist\/src/);
    expect(run).not.toMatch(/COPY (--from=build \/app\/)?(test|src|bench)\b/);
    expect(stages[0]).toMatch(/npm prune --omit=dev/);
    expect(run).toMatch(/^USER node$/m);
  });

  it('copies every folder the build compiles', () => {
    const tsconfig = JSON.parse(readFileSync(join(ROOT, 'tsconfig.json'), 'utf8').replace(/^\s*\/\/.*$/gm, '')) as {
      include: string[];
    };
    for (const glob of tsconfig.include) expect(stages[0]).toContain(`COPY ${glob.split('/')[0]} ./`);
  });
});
