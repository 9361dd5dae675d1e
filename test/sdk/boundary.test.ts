import { readFileSync, readdirSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The askgate-sdk package speaks HTTP only: every module of its sources imports (types included) only its own modules
 * and Node's built-ins — nothing of the gateway, no npm package — and its package.json declares no dependency a user's
 * install would fetch. (.dependency-cruiser.cjs holds the same boundary for `npm run lint`.)
 */

const ROOT = join(import.meta.dirname, '..', '..');
const PACKAGE = join(ROOT, 'packages', 'askgate-sdk');
const SDK = join(PACKAGE, 'src');

const modules = readdirSync(SDK, { withFileTypes: true, recursive: true })
  .filter((d) => d.isFile() && d.name.endsWith('.ts'))
  .map((d) => join(d.parentPath, d.name));

/** Every module specifier of `source`: static imports and re-exports (types too) and dynamic imports. */
function specifiers(source: string): string[] {
  const found: string[] = [];
  for (const m of source.matchAll(/^\s*(?:import|export)\b[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/gm))
    found.push(m[1] as string);
  for (const m of source.matchAll(/^\s*import\s*['"]([^'"]+)['"]/gm)) found.push(m[1] as string);
  for (const m of source.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) found.push(m[1] as string);
  return found;
}

const builtin = (spec: string): boolean => spec.startsWith('node:') || builtinModules.includes(spec);

/** What `file` imports from outside the SDK: other folders of the repository, or packages. */
function outside(file: string): string[] {
  return specifiers(readFileSync(file, 'utf8')).filter((spec) => {
    if (builtin(spec)) return false;
    if (!spec.startsWith('.')) return true; // a package
    return relative(SDK, resolve(dirname(file), spec)).startsWith('..');
  });
}

describe('the SDK boundary', () => {
  it('scans every SDK module, and reads each kind of import', () => {
    expect(modules.map((f) => relative(ROOT, f))).toEqual(
      expect.arrayContaining([
        'packages/askgate-sdk/src/index.ts',
        'packages/askgate-sdk/src/worker.ts',
        'packages/askgate-sdk/src/wire/interactions.ts',
      ]),
    );
    const sample = [
      "import { a } from '../core/types.js';",
      "import type { B } from 'bullmq';",
      "export { c } from '../mcp/x.js';",
      "export type {\n  D,\n} from './wire/d.js';",
      "const e = await import('ioredis');",
      "import 'side-effect';",
    ].join('\n');
    expect(specifiers(sample)).toEqual([
      '../core/types.js',
      'bullmq',
      '../mcp/x.js',
      './wire/d.js',
      'side-effect',
      'ioredis',
    ]);
  });

  it('imports only itself and Node built-ins', () => {
    const crossing = modules.flatMap((file) => outside(file).map((spec) => `${relative(ROOT, file)} → ${spec}`));
    expect(crossing).toEqual([]);
  });

  it('declares no dependency that an install would fetch', () => {
    const manifest = JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest['name']).toBe('askgate-sdk');
    for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies', 'bundleDependencies'])
      expect(manifest[field], field).toBeUndefined();
  });
});
