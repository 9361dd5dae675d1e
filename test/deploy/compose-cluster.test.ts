import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config.js';
import { parseClusterUrl } from '../../src/store/redis/cluster-url.js';

/** The `cluster` profile of docker-compose.yml (docs/scaling.md), read as docker compose reads it (merge keys on). */

const ROOT = process.cwd();

interface Service {
  image?: string;
  profiles?: string[];
  command?: string[] | string;
  env_file?: string;
  environment?: Record<string, string>;
  networks?: Record<string, { ipv4_address?: string }> | string[];
}

const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, Service>;
};
const services = compose.services;

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

describe('docker-compose.yml, profile cluster', () => {
  const nodes = Object.entries(services).filter(([name]) => name.startsWith('redis-node-'));

  it('runs six cluster-enabled nodes on fixed addresses, joined as three masters with one replica each', () => {
    expect(nodes).toHaveLength(6);
    const addresses = nodes.map(([, node]) => {
      expect(node.profiles).toEqual(['cluster']);
      expect(node.command).toEqual(expect.arrayContaining(['--cluster-enabled', 'yes']));
      return (node.networks as Record<string, { ipv4_address: string }>)['cluster']?.ipv4_address;
    });
    expect(new Set(addresses).size).toBe(6);
    const init = JSON.stringify(services['redis-cluster-init']?.command);
    for (const address of addresses) expect(init).toContain(`${address}:6379`);
    expect(init).toMatch(/--cluster-replicas 1 --cluster-yes/);
  });

  it("gives the cluster's gateway and worker a configuration askgate accepts, seeded with cluster nodes", () => {
    const example = editedExample();
    const addresses = nodes.map(
      ([, node]) => (node.networks as Record<string, { ipv4_address: string }>)['cluster']?.ipv4_address,
    );
    for (const name of ['gateway-cluster', 'worker-cluster']) {
      const service = services[name] as Service;
      expect(service.profiles).toEqual(['cluster']);
      expect(service.image).toBe(services['gateway']?.image);
      const config = loadConfig({ ...example, ...service.environment, PORT: '0' });
      expect(config.redisWaitReplicas).toBe(1);
      // Gateway and worker spread questions and runs over the same twelve shards (docs/scaling.md, "Shards").
      expect(config.shards).toBe(12);
      for (const seed of parseClusterUrl(config.redisUrl as string).nodes) expect(addresses).toContain(seed.host);
    }
  });
});
