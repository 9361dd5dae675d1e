import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Imports point into the core: channels, doors, parks, queues, the store implementations and the configuration
 * import the core; the core imports none of them. The ports it needs are interfaces in `src/core/` (ports.ts,
 * store-port.ts, verifier-port.ts), handed to it at construction.
 */
const ROOT = resolve(import.meta.dirname, '..', '..');
const CORE = join(ROOT, 'src', 'core');

/**
 * The only places inside the repository the core may reach, as paths relative to the root: itself, and the pure
 * form modules it shares with the browser. An allow-list, so a room added later (src/mcp, src/confirmations…) is
 * outside the core's side of the arrows without anyone remembering to list it.
 */
const ALLOWED_PATHS = ['src/core/', 'forms/'];
/** Packages the core must not import: web frameworks, Redis and queue clients, the logger and metrics libraries. */
const FORBIDDEN_PACKAGES = ['express', 'ioredis', 'bullmq', 'pino', 'prom-client'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every module specifier of a file: static imports and re-exports, side-effect imports and dynamic imports. */
function specifiersOf(source: string): string[] {
  const found: string[] = [];
  const patterns = [/\bfrom\s+['"]([^'"]+)['"]/g, /\bimport\s+['"]([^'"]+)['"]/g, /\bimport\(\s*['"]([^'"]+)['"]/g];
  for (const pattern of patterns) for (const m of source.matchAll(pattern)) found.push(m[1] as string);
  return found;
}

/** Why an import from `file` breaks the boundary, or null when it does not. */
function violation(file: string, specifier: string): string | null {
  if (specifier.startsWith('.')) {
    const target = relative(ROOT, resolve(dirname(file), specifier)).replaceAll('\\', '/');
    return ALLOWED_PATHS.some((p) => target.startsWith(p)) ? null : `imports ${target} (outside the core)`;
  }
  const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0];
  return FORBIDDEN_PACKAGES.includes(name ?? '') ? `imports the package ${name}` : null;
}

describe('the core boundary', () => {
  const files = sourceFiles(CORE);

  it('finds the core and its imports', () => {
    expect(files.length).toBeGreaterThan(10);
    const all = files.flatMap((f) => specifiersOf(readFileSync(f, 'utf8')));
    expect(all).toContain('./ports.js');
  });

  it('recognises an outward import of each kind it forbids', () => {
    const service = join(CORE, 'interaction-service.ts');
    expect(violation(service, '../../channels/registry.js')).toMatch(/channels/);
    expect(violation(service, '../runs/port.js')).toMatch(/src\/runs/);
    expect(violation(service, '../queue/queues.js')).toMatch(/src\/queue/);
    expect(violation(service, '../config.js')).toMatch(/config/);
    expect(violation(service, '../store/redis/redis-store.js')).toMatch(/src\/store/);
    expect(violation(join(CORE, 'formats', 'text.ts'), '../../store/store.js')).toMatch(/src\/store/);
    expect(violation(service, '../mcp/server.js')).toMatch(/src\/mcp/);
    expect(violation(service, '../confirmations/presets.js')).toMatch(/src\/confirmations/);
    expect(violation(service, '../dev-token.js')).toMatch(/dev-token/);
    for (const pkg of ['express', 'ioredis', 'bullmq']) expect(violation(service, pkg)).toMatch(pkg);
    expect(violation(service, './ports.js')).toBeNull();
    expect(violation(service, '../../forms/fields.js')).toBeNull();
    expect(
      specifiersOf(`import type { X } from '../config.js';\nexport * from "./y.js";\nawait import('ioredis');`),
    ).toEqual(['../config.js', './y.js', 'ioredis']);
  });

  for (const file of files) {
    it(`${relative(ROOT, file)} imports nothing outside the core's side of the arrows`, () => {
      const broken = specifiersOf(readFileSync(file, 'utf8'))
        .map((s) => violation(file, s))
        .filter((v) => v !== null);
      expect(broken).toEqual([]);
    });
  }
});
