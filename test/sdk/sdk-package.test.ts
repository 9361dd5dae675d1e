import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { api } from '../helpers/http.js';

/**
 * The askgate-sdk package as a user gets it: `npm pack` of packages/askgate-sdk (from the build `npm test` made
 * first) installs into new projects made the way docs/sdk.md says — `npm init -y`, `npm install <tarball>`,
 * `tsc --init`, then @types/node for `process` — installing nothing but itself, and its types and code work there:
 * the README's example in an ES module project (`"type": "module"`: `import`, top-level await) and docs/sdk.md's
 * CommonJS example in the CommonJS project `npm init` makes (`import … = require`, which a `tsc --init` project's
 * verbatimModuleSyntax asks of CommonJS), each compiled by `tsc` against the installed declarations and run against
 * a gateway, where this test answers it; and a misspelt field fails the user's own compile.
 */

const run = promisify(execFile);
const ROOT = process.cwd();
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
let dir: string;
let tarball: string;
let gw: TestGateway;

/** A new project made as docs/sdk.md says: npm init, the SDK installed from its tarball, tsc --init. */
async function newProject(name: string, type: 'module' | 'commonjs'): Promise<string> {
  const project = join(dir, name);
  mkdirSync(project);
  await run('npm', ['init', '-y'], { cwd: project });
  await run('npm', ['pkg', 'set', `type=${type}`], { cwd: project });
  await run('npm', ['install', tarball, '--no-audit', '--no-fund', '--prefer-offline'], {
    cwd: project,
    timeout: 120_000,
  });
  await run(process.execPath, [TSC, '--init'], { cwd: project });
  return project;
}

/** `tsc -p` in the project: its exit and its messages. */
async function compile(project: string): Promise<{ ok: boolean; output: string }> {
  try {
    await run(process.execPath, [TSC, '-p', project], { cwd: project });
    return { ok: true, output: '' };
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    return { ok: false, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

/**
 * Which of the package's builds the project uses: the file Node loads for `main.js` (import or require, by the
 * project's type) and the index declarations tsc reads, each relative to the installed package.
 */
async function entries(project: string): Promise<{ code: string; types: string }> {
  const installed = join(project, 'node_modules', 'askgate-sdk');
  const resolve = readFileSync(join(project, 'main.js'), 'utf8').includes('require(')
    ? "console.log(require.resolve('askgate-sdk'))"
    : "console.log(import.meta.resolve('askgate-sdk'))";
  const input = resolve.startsWith('console.log(require') ? 'commonjs' : 'module';
  const code = (await run(process.execPath, [`--input-type=${input}`, '-e', resolve], { cwd: project })).stdout;
  const explained = (await run(process.execPath, [TSC, '-p', project, '--noEmit', '--explainFiles'], { cwd: project }))
    .stdout;
  const index = explained.split('\n').filter((l) => /askgate-sdk\/dist\/[a-z]+\/index\.d\.ts$/.test(l.trim()));
  return {
    code: code
      .trim()
      .replace(/^file:\/\//, '')
      .replace(`${installed}/`, ''),
    types: index.map((l) => l.trim().replace(/^.*node_modules\/askgate-sdk\//, '')).join(' '),
  };
}

/** Runs `file` with node in `project` (ASKGATE_TOKEN set to the gateway's token), answers the question it asks with `answer`, and returns what it printed. */
async function runAndAnswer(project: string, file: string, question: string, answer: unknown): Promise<string> {
  const child = spawn(process.execPath, [file], {
    cwd: project,
    env: { ...process.env, ASKGATE_TOKEN: gw.token },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  let running = true;
  const exited = new Promise<number | null>((resolve) =>
    child.on('close', (code) => {
      running = false;
      resolve(code);
    }),
  );
  const http = api(gw.url, gw.token);
  let id: string | undefined;
  // Until the program has asked (node's start on a loaded host), bounded.
  const until = Date.now() + 120_000;
  while (id === undefined && running && Date.now() < until) {
    const items = (await http.get('/api/interactions?status=pending')).json['items'] as Array<Record<string, unknown>>;
    id = items.find((r) => r['question'] === question)?.['id'] as string | undefined;
    if (id === undefined) await new Promise((r) => setTimeout(r, 50));
  }
  expect(id, `the program never asked; stderr: ${stderr}`).toBeDefined();
  expect((await http.post(`/api/interactions/${id}/answer`, { answer })).json).toEqual({ status: 'answered' });
  expect(await exited, stderr).toBe(0);
  return stdout.trim();
}

let esm: string;
let cjs: string;
/** What `npm install <tarball>` put in each project's node_modules. */
let installed: string[][];

function installedPackages(project: string): string[] {
  const lock = JSON.parse(readFileSync(join(project, 'node_modules', '.package-lock.json'), 'utf8')) as {
    packages: Record<string, unknown>;
  };
  return Object.keys(lock.packages);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'askgate-sdk-pack-'));
  // --ignore-scripts: the tarball packs the build npm test made in pretest, rather than building again.
  const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], {
    cwd: join(ROOT, 'packages', 'askgate-sdk'),
  });
  const [info] = JSON.parse(packed.stdout) as Array<{ filename: string }>;
  tarball = join(dir, (info as { filename: string }).filename);
  esm = await newProject('esm', 'module');
  cjs = await newProject('cjs', 'commonjs');
  installed = [installedPackages(esm), installedPackages(cjs)];
  // docs/sdk.md: tsc --init's "types": [] leaves out process; the examples read process.env.
  await run('npm', ['install', '-D', '@types/node@20', '--no-audit', '--no-fund', '--prefer-offline'], {
    cwd: esm,
    timeout: 120_000,
  });
  await run('npm', ['install', '-D', '@types/node@20', '--no-audit', '--no-fund', '--prefer-offline'], {
    cwd: cjs,
    timeout: 120_000,
  });
  for (const project of [esm, cjs]) {
    const config = join(project, 'tsconfig.json');
    writeFileSync(config, readFileSync(config, 'utf8').replace('"types": [],', '"types": ["node"],'));
  }
  gw = await startTestGateway();
}, 360_000);

afterAll(async () => {
  await gw?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe('the askgate-sdk tarball', () => {
  it('holds both builds with their declarations and the README, and no sources, maps or build info', async () => {
    const listed = await run('tar', ['-tzf', tarball]);
    const files = listed.stdout.split('\n').filter((f) => f !== '');
    for (const f of [
      'package/package.json',
      'package/README.md',
      'package/dist/esm/index.js',
      'package/dist/esm/index.d.ts',
      'package/dist/cjs/index.js',
      'package/dist/cjs/index.d.ts',
      'package/dist/cjs/package.json',
      'package/dist/esm/wire/openapi.d.ts',
      'package/dist/esm/adapters/langchain.js',
      'package/dist/cjs/adapters/openai-agents.d.ts',
    ])
      expect(files).toContain(f);
    expect(files.filter((f) => /\/src\/|\.map$|tsbuildinfo|\.ts$/.test(f) && !f.endsWith('.d.ts'))).toEqual([]);
  });

  it('installs nothing but itself', () => {
    expect(installed).toEqual([['node_modules/askgate-sdk'], ['node_modules/askgate-sdk']]);
  });

  it('is tested against the tsc --init default this TypeScript writes (module nodenext)', () => {
    const config = readFileSync(join(esm, 'tsconfig.json'), 'utf8');
    expect(config).toMatch(/^\s*"module": "nodenext",/m);
    expect(config).toMatch(/^\s*"verbatimModuleSyntax": true,/m);
  });

  it("types and runs the README's ES module example in a tsc --init project, set up as docs/sdk.md says", async () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const block = /```ts\n(import \{ AskgateClient \} from 'askgate-sdk';[\s\S]*?)```/.exec(readme);
    expect(block, "README.md's ```ts block importing from askgate-sdk").not.toBeNull();
    const snippet = (block?.[1] as string).replace("'http://127.0.0.1:8080'", JSON.stringify(gw.url));
    expect(snippet).toContain(JSON.stringify(gw.url));
    writeFileSync(join(esm, 'main.ts'), `${snippet}console.log(JSON.stringify({ answer }));\n`);
    const compiled = await compile(esm);
    expect(compiled.output).toBe('');
    expect(compiled.ok).toBe(true);
    expect(await runAndAnswer(esm, 'main.js', 'Ship it?', true)).toBe('{"answer":true}');
    expect(await entries(esm)).toEqual({ code: 'dist/esm/index.js', types: 'dist/esm/index.d.ts' });
  }, 300_000);

  it("types and runs docs/sdk.md's CommonJS example (import = require) in a tsc --init project", async () => {
    const doc = readFileSync(join(ROOT, 'docs', 'sdk.md'), 'utf8');
    const block = /```ts\n(import askgate = require\('askgate-sdk'\);[\s\S]*?)```/.exec(doc);
    expect(block, "docs/sdk.md's ```ts block with import askgate = require('askgate-sdk')").not.toBeNull();
    const snippet = (block?.[1] as string).replace("'http://127.0.0.1:8080'", JSON.stringify(gw.url));
    expect(snippet).toContain(JSON.stringify(gw.url));
    writeFileSync(join(cjs, 'main.ts'), snippet);
    const compiled = await compile(cjs);
    expect(compiled.output).toBe('');
    expect(compiled.ok).toBe(true);
    // Compiled to CommonJS, which loads the package's CommonJS build, typed by that build's declarations.
    expect(readFileSync(join(cjs, 'main.js'), 'utf8')).toContain('require("askgate-sdk")');
    expect(await entries(cjs)).toEqual({ code: 'dist/cjs/index.js', types: 'dist/cjs/index.d.ts' });
    expect(await runAndAnswer(cjs, 'main.js', 'Ship it?', false)).toBe('false');
  }, 300_000);

  it('serves the framework adapters as subpaths, from both builds, in a project without the frameworks', async () => {
    const adapters = {
      langchain: 'EXPIRED_MESSAGE,parkInterrupt,resumeInterrupt,reviewInterrupt',
      'ai-sdk': 'EXPIRED_MESSAGE,approvalRequests,parkApprovals,resumeApprovals,reviewApprovals',
      'openai-agents': 'EXPIRED_MESSAGE,parkInterruptions,resumeInterruptions,reviewInterruptions',
    };
    // Neither project has langchain, ai or @openai/agents (optional peers: the install fetched none of them).
    for (const project of [esm, cjs]) expect(existsSync(join(project, 'node_modules', 'ai'))).toBe(false);
    for (const [name, exported] of Object.entries(adapters)) {
      const spec = `askgate-sdk/${name}`;
      const keys = 'Object.keys(m).sort().join()';
      const esmRun = `const m = await import('${spec}'); console.log(import.meta.resolve('${spec}'), ${keys});`;
      const cjsRun = `const m = require('${spec}'); console.log(require.resolve('${spec}'), ${keys});`;
      const fromEsm = (await run(process.execPath, ['--input-type=module', '-e', esmRun], { cwd: esm })).stdout;
      const fromCjs = (await run(process.execPath, ['--input-type=commonjs', '-e', cjsRun], { cwd: cjs })).stdout;
      expect(fromEsm.trim()).toMatch(
        new RegExp(`/node_modules/askgate-sdk/dist/esm/adapters/${name}\\.js ${exported}$`),
      );
      expect(fromCjs.trim()).toMatch(
        new RegExp(`/node_modules/askgate-sdk/dist/cjs/adapters/${name}\\.js ${exported}$`),
      );
    }
    // And the compiler finds each subpath's declarations: `import` in the ES module project, `import = require` in
    // the CommonJS one.
    writeFileSync(
      join(esm, 'adapters.ts'),
      "import { reviewInterrupt } from 'askgate-sdk/langchain';\n" +
        "import { reviewApprovals } from 'askgate-sdk/ai-sdk';\n" +
        "import { reviewInterruptions } from 'askgate-sdk/openai-agents';\n" +
        'console.log(typeof reviewInterrupt, typeof reviewApprovals, typeof reviewInterruptions);\n',
    );
    writeFileSync(
      join(cjs, 'adapters.ts'),
      "import lc = require('askgate-sdk/langchain');\nimport ai = require('askgate-sdk/ai-sdk');\n" +
        "import oa = require('askgate-sdk/openai-agents');\n" +
        'console.log(typeof lc.reviewInterrupt, typeof ai.reviewApprovals, typeof oa.reviewInterruptions);\n',
    );
    try {
      for (const [project, build] of [
        [esm, 'esm'],
        [cjs, 'cjs'],
      ] as const) {
        const compiled = await compile(project);
        expect(compiled.output).toBe('');
        const explained = (
          await run(process.execPath, [TSC, '-p', project, '--noEmit', '--explainFiles'], { cwd: project })
        ).stdout;
        for (const name of Object.keys(adapters))
          expect(explained).toContain(`node_modules/askgate-sdk/dist/${build}/adapters/${name}.d.ts`);
        const printed = (await run(process.execPath, ['adapters.js'], { cwd: project })).stdout;
        expect(printed.trim()).toBe('function function function');
      }
      // The tsconfig TypeScript 5.8 and earlier wrote ("module": "commonjs", which resolves as node10 and reads no
      // "exports") finds them through the package's typesVersions.
      const node10 = ['-p', cjs, '--noEmit', '--module', 'commonjs', '--moduleResolution', 'node10'];
      const old = await run(process.execPath, [TSC, ...node10, '--verbatimModuleSyntax', 'false', '--explainFiles'], {
        cwd: cjs,
      });
      expect(old.stdout).toContain('node_modules/askgate-sdk/dist/cjs/adapters/openai-agents.d.ts');
    } finally {
      for (const project of [esm, cjs]) {
        rmSync(join(project, 'adapters.ts'));
        rmSync(join(project, 'adapters.js'), { force: true });
      }
    }
  }, 300_000);

  it('refuses misspelt ask fields at compile time in the user project', async () => {
    const lines = [
      "import { AskgateClient } from 'askgate-sdk';",
      "const askgate = new AskgateClient({ url: 'http://127.0.0.1:8080', token: 'a-token-of-16-chars' });",
      "await askgate.ask({ question: 'Ship it?', answerFormat: 'confirm' });",
      "await askgate.ask({ question: 'Ship it?', answer_format: 'confirm', groupId: 'release' });",
      "await askgate.ask({ question: 'Ship it?', answer_format: 'confirm', quorum: { approve: 2, rejct: 1 } });",
    ];
    writeFileSync(join(esm, 'typo.ts'), `${lines.join('\n')}\n`);
    /** Where tsc reports `field` written on line `n` (1-based line and column). */
    const at = (n: number, field: string): string => `typo.ts(${n},${(lines[n - 1] as string).indexOf(field) + 1})`;
    try {
      const compiled = await compile(esm);
      expect(compiled.ok).toBe(false);
      const errors = compiled.output.split('\n').filter((line) => /error TS\d+/.test(line));
      // One error per misspelt field, each where the field is written.
      expect(errors.map((line) => /^(typo\.ts\(\d+,\d+\))/.exec(line)?.[1])).toEqual([
        at(3, 'answerFormat'),
        at(4, 'groupId'),
        at(5, 'rejct'),
      ]);
      expect(errors[0]).toContain("'answerFormat' does not exist");
    } finally {
      rmSync(join(esm, 'typo.ts'));
    }
  }, 120_000);
});
