import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { api } from '../helpers/http.js';

/**
 * The package as a user gets it: `npm pack` makes a tarball (from the build `npm test` made first), which installs
 * into an empty folder with its dependencies, holds no tests, fakes or benchmarks, and runs the README's SDK snippet
 * as written (only the gateway's address is this test's) and the `askgate` bin.
 */

const run = promisify(execFile);
const ROOT = process.cwd();
let dir: string;
let app: string;
let tarball: string;
let gw: TestGateway;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'askgate-pack-'));
  // --ignore-scripts: the tarball packs the build npm test made in pretest, rather than building again.
  const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], { cwd: ROOT });
  const [info] = JSON.parse(packed.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  tarball = join(dir, (info as { filename: string }).filename);
  app = join(dir, 'app');
  await run('mkdir', ['-p', app]);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  await run('npm', ['install', tarball, '--no-audit', '--no-fund', '--prefer-offline', '--omit=dev'], {
    cwd: app,
    timeout: 300_000,
  });
  gw = await startTestGateway();
}, 360_000);

afterAll(async () => {
  await gw?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

/**
 * The README's SDK snippet, importing from `askgate` instead of `askgate-sdk` as the README says the gateway's
 * package allows (it re-exports the SDK it carries); test/sdk/sdk-package.test.ts runs it as written.
 */
function readmeSnippet(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const block = /```ts\n(import \{ AskgateClient \} from 'askgate-sdk';[\s\S]*?)```/.exec(readme);
  if (block === null) throw new Error('README.md has no ```ts block importing AskgateClient from askgate-sdk');
  return (block[1] as string).replace("from 'askgate-sdk';", "from 'askgate';");
}

describe('the packed tarball', () => {
  it('holds the SDK, the bin, the browser build and the docs, and no tests, fakes or benchmarks', async () => {
    const listed = await run('tar', ['-tzf', tarball]);
    const files = listed.stdout.split('\n').filter((f) => f !== '');
    // The package's entry re-exports askgate-sdk, which the tarball carries (bundled: it is fetched from no registry).
    expect(files).toContain('package/dist/src/sdk.js');
    expect(files).toContain('package/dist/src/sdk.d.ts');
    expect(files).toContain('package/node_modules/askgate-sdk/package.json');
    expect(files).toContain('package/node_modules/askgate-sdk/dist/esm/index.js');
    expect(files).toContain('package/node_modules/askgate-sdk/dist/esm/index.d.ts');
    expect(files.filter((f) => f.startsWith('package/node_modules/') && !f.includes('/askgate-sdk/'))).toEqual([]);
    expect(files.filter((f) => f.includes('askgate-sdk/src/'))).toEqual([]);
    expect(files).toContain('package/dist/src/cli/main.js');
    expect(files).toContain('package/dist/web/web/inbox.js');
    expect(files).toContain('package/web/inbox.css');
    expect(files.filter((f) => /\/(test|bench|fakes)\//.test(f) || f.endsWith('.test.js'))).toEqual([]);
    expect(readdirSync(join(app, 'node_modules', 'askgate'))).not.toContain('test');
  });

  it("runs the README's SDK snippet from an empty project: the ask blocks until answered and returns the answer", async () => {
    const snippet = readmeSnippet().replace("'http://127.0.0.1:8080'", JSON.stringify(gw.url));
    expect(snippet).toContain(JSON.stringify(gw.url));
    expect(snippet).toContain("from 'askgate';");
    // The snippet is TypeScript: compiled by the project's own tsc against the installed package's types, as a
    // user's project would, which also checks that the published declarations type the README's code.
    writeFileSync(join(app, 'snippet.ts'), `${snippet}\nconsole.log(JSON.stringify({ answer }));\n`);
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          types: ['node'],
        },
        files: ['snippet.ts'],
      }),
    );
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    await run(process.execPath, [tsc, '-p', app], { cwd: app }).catch((err: { stdout?: string }) => {
      throw new Error(`the README snippet does not compile against the package: ${err.stdout ?? String(err)}`);
    });
    const child = spawn(process.execPath, ['snippet.js'], {
      cwd: app,
      env: { ...process.env, ASKGATE_TOKEN: gw.token },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const http = api(gw.url, gw.token);
    // Answer the question once the snippet has asked it.
    let id: string | undefined;
    // Until the snippet has asked (node's start and the SDK's import take a while on a loaded host), bounded.
    const until = Date.now() + 180_000;
    while (id === undefined && Date.now() < until) {
      const items = (await http.get('/api/interactions?status=pending')).json['items'] as Array<
        Record<string, unknown>
      >;
      id = items.find((r) => r['question'] === 'Ship it?')?.['id'] as string | undefined;
      if (id === undefined) await new Promise((r) => setTimeout(r, 50));
    }
    expect(id, `the snippet never asked; stderr: ${stderr}`).toBeDefined();
    expect((await http.post(`/api/interactions/${id}/answer`, { answer: true })).json).toEqual({ status: 'answered' });
    expect(await exited, stderr).toBe(0);
    expect(JSON.parse(stdout.trim())).toEqual({ answer: true });
    // tsc over the installed package and a spawned node: generous on a loaded two-core host.
  }, 300_000);

  it("ships the Redis scripts as .lua files, which the installed package's loader resolves", async () => {
    const listed = await run('tar', ['-tzf', tarball]);
    const files = listed.stdout.split('\n').filter((f) => f.endsWith('.lua'));
    const scripts = join(ROOT, 'src', 'store', 'redis', 'scripts');
    const sources = readdirSync(scripts, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.lua'));
    expect(sources.length).toBeGreaterThan(20);
    expect(files.sort()).toEqual(sources.map((f) => `package/dist/src/store/redis/scripts/${f}`).sort());
    // The loader, imported from the installed package, reads and resolves every script beside it.
    const loader = join(app, 'node_modules', 'askgate', 'dist', 'src', 'store', 'redis', 'scripts', 'index.js');
    const check = `const m = await import(${JSON.stringify(pathToFileURL(loader).href)});
      for (const f of m.SCRIPT_FILES) if (!m.scriptLua(f).includes('redis.call')) throw new Error(f);
      console.log(m.SCRIPT_FILES.length);`;
    const out = await run(process.execPath, ['--input-type=module', '-e', check], { cwd: app });
    expect(Number(out.stdout.trim())).toBe(sources.filter((f) => !f.startsWith('includes')).length);
  });

  it('installs the askgate bin, which answers --help', async () => {
    const help = await run(join(app, 'node_modules', '.bin', 'askgate'), ['--help'], { cwd: app });
    expect(help.stdout).toMatch(/interactions/);
  });
});
