import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The services reach infrastructure only through ports: confirmations, verifiers, the doors, the callback pages and
 * the MCP server import neither the store's nor the queue's folder, nor ioredis or bullmq (their types come from
 * the core's ports or from the port a service owns, e.g. `src/confirmations/jobs.ts`); only the composition root
 * wires the adapters in. Every module specifier is read, type-only imports included.
 */
const ROOT = resolve(import.meta.dirname, '..', '..');
const SERVICES = ['src/confirmations', 'src/verifiers', 'src/doors', 'src/callback', 'src/mcp'];
const FORBIDDEN_PATHS = ['src/store/', 'src/queue/'];
const FORBIDDEN_PACKAGES = ['ioredis', 'bullmq'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

function specifiersOf(source: string): string[] {
  const found: string[] = [];
  const patterns = [/\bfrom\s+['"]([^'"]+)['"]/g, /\bimport\s+['"]([^'"]+)['"]/g, /\bimport\(\s*['"]([^'"]+)['"]/g];
  for (const pattern of patterns) for (const m of source.matchAll(pattern)) found.push(m[1] as string);
  return found;
}

function violation(file: string, specifier: string): string | null {
  if (specifier.startsWith('.')) {
    const target = relative(ROOT, resolve(dirname(file), specifier)).replaceAll('\\', '/');
    return FORBIDDEN_PATHS.some((p) => target.startsWith(p)) ? `imports ${target}` : null;
  }
  const name = specifier.split('/')[0] ?? '';
  return FORBIDDEN_PACKAGES.includes(name) ? `imports the package ${name}` : null;
}

describe('the service boundary', () => {
  it('recognises each kind of import it forbids', () => {
    const file = join(ROOT, 'src/confirmations/wiring.ts');
    expect(violation(file, '../store/store.js')).toBe('imports src/store/store.js');
    expect(violation(file, '../queue/confirmation-jobs.js')).toBe('imports src/queue/confirmation-jobs.js');
    expect(violation(file, 'bullmq')).toBe('imports the package bullmq');
    expect(violation(file, 'ioredis')).toBe('imports the package ioredis');
    expect(violation(file, '../core/store-port.js')).toBeNull();
  });

  for (const service of SERVICES) {
    it(`${service} imports neither src/store, src/queue, ioredis nor bullmq`, () => {
      const files = sourceFiles(join(ROOT, service));
      expect(files.length).toBeGreaterThan(0);
      const found = files.flatMap((file) =>
        specifiersOf(readFileSync(file, 'utf8')).flatMap((specifier) => {
          const why = violation(file, specifier);
          return why === null ? [] : [`${relative(ROOT, file)} ${why}`];
        }),
      );
      expect(found).toEqual([]);
    });
  }
});

describe('the one verdict shape', () => {
  it('reaches channels/http.ts as a type only: the built module loads nothing of src/', () => {
    const source = readFileSync(join(ROOT, 'channels/http.ts'), 'utf8');
    expect(source).toContain("import type { VerifyResult } from '../src/core/verify-result.js';");
    // The build (test/helpers/prerequisites.ts runs it first) erases a type-only import.
    const built = readFileSync(join(ROOT, 'dist/channels/http.js'), 'utf8');
    expect(specifiersOf(built).filter((s) => s.includes('src/'))).toEqual([]);
  });
});
