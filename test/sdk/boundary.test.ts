import { readFileSync, readdirSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The askgate-sdk package speaks HTTP only: every module of its sources imports (types included) only its own modules
 * and Node's built-ins — nothing of the gateway, no npm package — and its package.json declares no dependency a user's
 * install would fetch. The one exception: each framework adapter (`askgate-sdk/langchain`, `/ai-sdk`,
 * `/openai-agents`) imports its own framework's types, `import type` only (erased from the build), and the frameworks
 * are optional peer dependencies, which an install does not fetch. (.dependency-cruiser.cjs holds the same boundary
 * for `npm run lint`.)
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

/** Each adapter module and the one package whose types it may import. */
const ADAPTERS: Record<string, string> = {
  'adapters/langchain.ts': 'langchain',
  'adapters/ai-sdk.ts': 'ai',
  'adapters/openai-agents.ts': '@openai/agents',
};

/** The packages (not relative modules) `source` imports with `import type`; any other import of them is a value import. */
function typeOnlyPackages(source: string): string[] {
  const found: string[] = [];
  for (const m of source.matchAll(/^\s*import\s+type\s+\{[^}]*\}\s*from\s*['"]([^'"]+)['"]/gm))
    found.push(m[1] as string);
  return found.filter((spec) => !spec.startsWith('.'));
}

const builtin = (spec: string): boolean => spec.startsWith('node:') || builtinModules.includes(spec);

/** What `file` imports from outside the SDK: other folders of the repository, or packages (an adapter's framework types aside). */
function outside(file: string): string[] {
  const source = readFileSync(file, 'utf8');
  const framework = ADAPTERS[relative(SDK, file)];
  const types = typeOnlyPackages(source);
  let exempt = framework !== undefined && types.includes(framework) ? 1 : 0;
  return specifiers(source).filter((spec) => {
    if (builtin(spec)) return false;
    if (spec === framework && exempt > 0) {
      exempt -= 1; // one `import type` of its framework; a second import of it is not exempt
      return false;
    }
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

  it('lets an adapter import only its own framework, and only its types', () => {
    const adapter = join(SDK, 'adapters', 'langchain.ts');
    const source = readFileSync(adapter, 'utf8');
    expect(typeOnlyPackages(source)).toEqual(['langchain']);
    expect(outside(adapter)).toEqual([]);
    // The same imports written as a value import, or of another framework, cross the boundary.
    expect(typeOnlyPackages("import { type HITLRequest } from 'langchain';")).toEqual([]);
    expect(typeOnlyPackages("import type { HITLRequest } from 'langchain';")).toEqual(['langchain']);
    expect(ADAPTERS['adapters/review.ts']).toBeUndefined();
  });

  it('declares no dependency that an install would fetch: the frameworks are optional peers', () => {
    const manifest = JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest['name']).toBe('askgate-sdk');
    for (const field of ['dependencies', 'optionalDependencies', 'bundleDependencies'])
      expect(manifest[field], field).toBeUndefined();
    expect(Object.keys(manifest['peerDependencies'] as object).sort()).toEqual(['@openai/agents', 'ai', 'langchain']);
    expect(manifest['peerDependenciesMeta']).toEqual({
      '@openai/agents': { optional: true },
      ai: { optional: true },
      langchain: { optional: true },
    });
  });
});
