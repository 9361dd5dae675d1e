import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { api } from '../helpers/http.js';

/**
 * The askgate-sdk package as a user gets it: `npm pack` of packages/askgate-sdk (from the build `npm test` made
 * first) installs into a new project made the way docs/sdk.md says — `npm init -y`, `npm install <tarball>`,
 * `tsc --init` — installing nothing but itself, and its types and code work there: in an ES module project
 * (`"type": "module"`, the README's `import` with top-level await) and in the CommonJS project `npm init` makes
 * (`import … = require`, which a `tsc --init` project's verbatimModuleSyntax asks of CommonJS). Each program is
 * compiled by `tsc` against the installed declarations and run against a gateway, where this test answers it.
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

/** Runs `file` with node in `project`, answers the question it asks with `answer`, and returns what it printed. */
async function runAndAnswer(project: string, file: string, question: string, answer: unknown): Promise<string> {
  const child = spawn(process.execPath, [file], { cwd: project, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const http = api(gw.url, gw.token);
  let id: string | undefined;
  // Until the program has asked (node's start on a loaded host), bounded.
  const until = Date.now() + 120_000;
  while (id === undefined && Date.now() < until) {
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
    ])
      expect(files).toContain(f);
    expect(files.filter((f) => /\/src\/|\.map$|tsbuildinfo|\.ts$/.test(f) && !f.endsWith('.d.ts'))).toEqual([]);
  });

  it('installs nothing but itself', () => {
    for (const project of [esm, cjs]) {
      const lock = JSON.parse(readFileSync(join(project, 'node_modules', '.package-lock.json'), 'utf8')) as {
        packages: Record<string, unknown>;
      };
      expect(Object.keys(lock.packages)).toEqual(['node_modules/askgate-sdk']);
    }
  });

  it('is tested against the tsc --init default this TypeScript writes (module nodenext)', () => {
    const config = readFileSync(join(esm, 'tsconfig.json'), 'utf8');
    expect(config).toMatch(/^\s*"module": "nodenext",/m);
    expect(config).toMatch(/^\s*"verbatimModuleSyntax": true,/m);
  });

  it('types and runs an ES module program (import, top-level await) in a tsc --init project', async () => {
    writeFileSync(
      join(esm, 'main.ts'),
      `import { AskgateClient } from 'askgate-sdk';

const askgate = new AskgateClient({ url: ${JSON.stringify(gw.url)}, token: ${JSON.stringify(gw.token)} });
const { answer } = await askgate.ask({ question: 'Ship it? (esm)', answer_format: 'confirm', timeout: 600 });
const shipped: boolean = answer;
console.log(JSON.stringify({ shipped }));
`,
    );
    const compiled = await compile(esm);
    expect(compiled.output).toBe('');
    expect(compiled.ok).toBe(true);
    expect(await runAndAnswer(esm, 'main.js', 'Ship it? (esm)', true)).toBe('{"shipped":true}');
    expect(await entries(esm)).toEqual({ code: 'dist/esm/index.js', types: 'dist/esm/index.d.ts' });
  }, 300_000);

  it('types and runs a CommonJS program (import = require) in a tsc --init project', async () => {
    writeFileSync(
      join(cjs, 'main.ts'),
      `import askgate = require('askgate-sdk');

const client = new askgate.AskgateClient({ url: ${JSON.stringify(gw.url)}, token: ${JSON.stringify(gw.token)} });
client
  .ask({ question: 'Region? (cjs)', answer_format: 'select', choices: ['eu', 'us'] })
  .then(({ answer }) => {
    const region: 'eu' | 'us' = answer;
    console.log(JSON.stringify({ region }));
  });
`,
    );
    const compiled = await compile(cjs);
    expect(compiled.output).toBe('');
    expect(compiled.ok).toBe(true);
    // Compiled to CommonJS, which loads the package's CommonJS build, typed by that build's declarations.
    expect(readFileSync(join(cjs, 'main.js'), 'utf8')).toContain('require("askgate-sdk")');
    expect(await entries(cjs)).toEqual({ code: 'dist/cjs/index.js', types: 'dist/cjs/index.d.ts' });
    expect(await runAndAnswer(cjs, 'main.js', 'Region? (cjs)', 'us')).toBe('{"region":"us"}');
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
