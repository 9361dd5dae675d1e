import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AskgateClient, type InteractionRecord } from 'askgate-sdk';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

/**
 * The `askgate` command as a real process (the built dist/, as users run it) against an in-process gateway.
 * `npm test` builds first (pretest); run `npx tsc -p tsconfig.json` before running this file alone.
 */

const CLI = join(process.cwd(), 'dist/src/cli/main.js');

let gw: TestGateway;
let sdk: AskgateClient;

beforeAll(async () => {
  if (!existsSync(CLI))
    throw new Error(`${CLI} is missing: run \`npx tsc -p tsconfig.json\` (npm test does it in pretest).`);
  gw = await startTestGateway();
  sdk = new AskgateClient({ url: gw.url, token: gw.token });
});

afterAll(async () => {
  await gw?.close();
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment of a CLI run: the test gateway, and nothing inherited that could point elsewhere. */
function cliEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ASKGATE_URL: gw.url,
    ASKGATE_TOKEN: gw.token,
    NO_COLOR: '1',
    ...extra,
  };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
  return env;
}

function start(
  args: readonly string[],
  extra: Record<string, string | undefined> = {},
): { child: ChildProcess; done: Promise<Run>; stdout: () => string; stderr: () => string } {
  const child = spawn(process.execPath, [CLI, ...args], { env: cliEnv(extra), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<Run>((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
  return { child, done, stdout: () => stdout, stderr: () => stderr };
}

const run = (args: readonly string[], extra: Record<string, string | undefined> = {}): Promise<Run> =>
  start(args, extra).done;

async function until<T>(probe: () => T | undefined | Promise<T | undefined>, what: string, ms = 10_000): Promise<T> {
  const stopAt = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > stopAt) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The pending interaction of `group`, once the CLI process has created it. */
const pendingIn = (group: string): Promise<InteractionRecord> =>
  until(async () => (await sdk.list({ groupId: group })).items[0], `a pending ask in ${group}`);

describe('askgate interactions ask', () => {
  it('--wait blocks, then prints the answer as JSON and exits 0', async () => {
    const group = `cli-${randomUUID()}`;
    const asking = start([
      'interactions',
      'ask',
      'Ship it?',
      '--format',
      'confirm',
      '--wait',
      '--group',
      group,
      '--timeout',
      '30',
    ]);
    const record = await pendingIn(group);
    expect(record.question).toBe('Ship it?');
    expect(await sdk.answer(record.id, true)).toBe('answered');
    const result = await asking.done;
    expect(result.stdout.trim()).toBe('true');
    expect(result.code).toBe(0);
  });

  it('--wait exits 2 with a message when the deadline passes', async () => {
    const result = await run(['interactions', 'ask', 'Anyone?', '--format', 'text', '--timeout', '1', '--wait']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^askgate: no answer to \S+ before its deadline .*; it expired\.$/m);
    expect(result.stdout).toBe('');
  });

  it('without --wait prints the new id; --json the record; select choices and a schema file go through', async () => {
    const plain = await run(['interactions', 'ask', 'Region?', '--format', 'select', '--choices', 'eu, us']);
    expect(plain.code).toBe(0);
    const record = await sdk.get(plain.stdout.trim());
    expect(record.choices).toEqual(['eu', 'us']);
    const dir = mkdtempSync(join(tmpdir(), 'askgate-cli-'));
    const schemaFile = join(dir, 'schema.json');
    writeFileSync(schemaFile, JSON.stringify({ type: 'object', properties: { n: { type: 'integer' } } }));
    const json = await run(['interactions', 'ask', 'Count?', '--format', 'form', '--schema', schemaFile, '--json']);
    expect(json.code).toBe(0);
    expect((JSON.parse(json.stdout) as InteractionRecord).schema).toEqual({
      type: 'object',
      properties: { n: { type: 'integer' } },
    });
  });

  it('prints the gateway refusal with its field and exits 1', async () => {
    const result = await run(['interactions', 'ask', 'Pick', '--format', 'select']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^askgate: .*\(field: choices\) \[400 invalid_request\]$/m);
  });
});

describe('askgate web-chat link', () => {
  it('mints a chat link for a recipient: the URL opens /chat and its token signs in as that recipient', async () => {
    const result = await run(['web-chat', 'link', 'ada']);
    expect(result.code).toBe(0);
    const url = new URL(result.stdout.trim());
    expect(url.pathname).toBe('/chat');
    const token = new URLSearchParams(url.hash.slice(1)).get('token');
    expect(token).toBeTruthy();
    const me = await fetch(`${gw.url}/chat/api/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ recipient: 'ada' });
    const json = await run(['web-chat', 'link', 'bob', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ recipient: 'bob' });
  });
});

describe('askgate interactions answer', () => {
  it('prints answered, then already_answered', async () => {
    const record = await sdk.create({ question: 'Colour?', answer_format: 'text', timeout: 30 });
    // A bare word that is not JSON is taken as a string.
    const first = await run(['interactions', 'answer', record.id, 'blue']);
    expect(first).toMatchObject({ code: 0, stdout: 'answered\n' });
    // The CLI names itself: its answer is recorded as the command line's, in the record and the audit trail.
    expect((await sdk.get(record.id)).result).toMatchObject({ answer: 'blue', surface: 'cli' });
    expect((await sdk.events(record.id)).find((e) => e.type === 'answered')).toMatchObject({ surface: 'cli' });
    const second = await run(['interactions', 'answer', record.id, '"red"']);
    expect(second).toMatchObject({ code: 0, stdout: 'already_answered\n' });
  });

  it('a value that looks like JSON but does not parse says "not valid JSON" and sends nothing', async () => {
    const record = await sdk.create({
      question: 'Which fields?',
      answer_format: 'form',
      schema: { type: 'object', properties: { count: { type: 'integer' } } },
      timeout: 30,
    });
    for (const broken of ['{"count": 3', '["a",', '"unclosed']) {
      const result = await run(['interactions', 'answer', record.id, broken]);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^askgate: the answer .* is not valid JSON \(.*\); fix it, or pass a bare word/m);
      expect(result.stderr).not.toMatch(/must be object/);
    }
    expect((await sdk.get(record.id)).status).toBe('pending');
  });

  it('a usage mistake is one askgate: line, like every other failure', async () => {
    const result = await run(['interactions', 'answer']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^askgate: missing required argument 'id'/m);
    expect(result.stderr).not.toMatch(/^error:/m);
  });

  it('a refused value exits 1 and prints the server message with the field', async () => {
    const record = await sdk.create({
      question: 'How many?',
      answer_format: 'form',
      schema: { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] },
      timeout: 30,
    });
    const result = await run(['interactions', 'answer', record.id, '{"count": "three"}']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^askgate: answer does not match schema at \S*count\S*: .* \(field: \S*count\S*\) \[400 invalid_answer\]$/m,
    );
    expect((await sdk.get(record.id)).status).toBe('pending');
  });
});

describe('askgate interactions list and show', () => {
  it('list --json parses and holds the pending ask; the table has headers', async () => {
    const group = `list-${randomUUID()}`;
    const record = await sdk.create({
      question: 'Listed?\nsecond line',
      answer_format: 'confirm',
      group_id: group,
      timeout: 30,
    });
    const json = await run(['interactions', 'list', '--json', '--group', group]);
    expect(json.code).toBe(0);
    const page = JSON.parse(json.stdout) as { items: InteractionRecord[]; next_cursor: string | null };
    expect(page.items.map((r) => r.id)).toEqual([record.id]);
    expect(page.next_cursor).toBeNull();
    const table = await run(['interactions', 'list', '--group', group]);
    const [header, row] = table.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^ID\s+STATUS\s+FORMAT\s+CHANNEL\s+AGE\s+QUESTION$/);
    expect(row).toMatch(new RegExp(`^${record.id}\\s+pending\\s+confirm\\s+inbox\\s+\\d+s\\s+Listed\\? second line$`));
  });

  it('list pages with --limit and says how to get the next page', async () => {
    const group = `page-${randomUUID()}`;
    for (const n of [1, 2])
      await sdk.create({ question: `P${n}`, answer_format: 'confirm', group_id: group, timeout: 30 });
    const first = await run(['interactions', 'list', '--group', group, '--limit', '1']);
    expect(first.stdout).toMatch(/P1/);
    const cursor = /--cursor (\S+)/.exec(first.stderr)?.[1];
    expect(cursor).toBeDefined();
    const second = await run(['interactions', 'list', '--group', group, '--limit', '1', '--cursor', cursor as string]);
    expect(second.stdout).toMatch(/P2/);
    expect(second.stderr).toBe('');
  });

  it('show prints the record; --json parses', async () => {
    const record = await sdk.create({ question: 'Shown?', answer_format: 'confirm', timeout: 30 });
    await sdk.answer(record.id, false);
    const human = await run(['interactions', 'show', record.id]);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^status\s+answered$/m);
    expect(human.stdout).toMatch(/^answer\s+false$/m);
    const json = await run(['interactions', 'show', record.id, '--json']);
    expect((JSON.parse(json.stdout) as InteractionRecord).id).toBe(record.id);
    const missing = await run(['interactions', 'show', 'nope']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/\[404 not_found\]/);
  });
});

describe('askgate interactions tail', () => {
  it('prints one line per event until killed', async () => {
    const tail = start(['interactions', 'tail']);
    await until(() => (tail.stderr().includes('tailing') ? true : undefined), 'the tail to connect');
    const record = await sdk.create({ question: 'Tailed?', answer_format: 'confirm', timeout: 30 });
    const line = await until(
      () =>
        tail
          .stdout()
          .split('\n')
          .find((l) => l.includes(record.id)),
      'the created line',
    );
    expect(line).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d  created\\s+${record.id}  confirm\\s+Tailed\\?$`));
    tail.child.kill('SIGTERM');
    expect((await tail.done).code).toBe(0);
  });

  it('--json prints one parseable event per line', async () => {
    const tail = start(['interactions', 'tail', '--json']);
    await until(() => (tail.stderr().includes('tailing') ? true : undefined), 'the tail to connect');
    const record = await sdk.create({ question: 'Tailed JSON?', answer_format: 'confirm', timeout: 30 });
    await sdk.answer(record.id, true);
    const lines = await until(() => {
      const mine = tail
        .stdout()
        .split('\n')
        .filter((l) => l.includes(record.id));
      return mine.length >= 2 ? mine : undefined;
    }, 'two events');
    const events = lines.map((l) => JSON.parse(l) as { type: string; record: InteractionRecord });
    expect(events.map((e) => e.type)).toEqual(['interaction.created', 'interaction.answered']);
    tail.child.kill('SIGINT');
    expect((await tail.done).code).toBe(0);
  });
});

describe('askgate start', () => {
  it('prints where it listens and the dev token, serves the CLI, and stops on SIGINT', async () => {
    const server = start(['start'], {
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      ASKGATE_TOKENS: undefined,
      REDIS_URL: undefined,
    });
    const url = await until(
      () => /askgate listening on (http:\/\/\S+)/.exec(server.stdout())?.[1],
      'the listening line',
    );
    const token = await until(() => /ASKGATE_TOKEN=(\S+)/.exec(server.stdout())?.[1], 'the dev token');
    const list = await run(['interactions', 'list', '--json'], { ASKGATE_URL: url, ASKGATE_TOKEN: token });
    expect(JSON.parse(list.stdout)).toEqual({ items: [], next_cursor: null });
    server.child.kill('SIGINT');
    expect((await server.done).code).toBe(0);
  });
});

describe('askgate configuration and help', () => {
  it('a missing token is one clear line', async () => {
    const result = await run(['interactions', 'list'], { ASKGATE_TOKEN: undefined });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'askgate: no token: set ASKGATE_TOKEN (the dev token is printed by `npm start`), or pass --token.\n',
    );
  });

  it('--url and --token override the environment, before or after the subcommand', async () => {
    const result = await run(['--url', gw.url, 'interactions', 'list', '--json', '--token', gw.token], {
      ASKGATE_URL: 'http://127.0.0.1:1',
      ASKGATE_TOKEN: 'wrong',
    });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toHaveProperty('items');
  });

  it('an unreachable gateway says so without echoing the token', async () => {
    const result = await run(['interactions', 'list'], { ASKGATE_URL: 'http://127.0.0.1:1' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/could not reach the gateway at http:\/\/127\.0\.0\.1:1/);
    expect(result.stderr + result.stdout).not.toContain(gw.token);
  });

  it.each([
    [[]],
    [['start']],
    [['serve']],
    [['worker']],
    [['interactions']],
    [['interactions', 'list']],
    [['interactions', 'tail']],
    [['interactions', 'show']],
    [['interactions', 'answer']],
    [['interactions', 'ask']],
    [['web-chat', 'link']],
  ])('%j --help prints usage with examples', async (args: string[]) => {
    const result = await run([...args, '--help'], { ASKGATE_TOKEN: undefined });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^Usage: askgate${args.map((a) => ` ${a}`).join('')}`));
    if (args[0] !== 'interactions' || args.length > 1) expect(result.stdout).toMatch(/Examples:/);
  });

  it('answer --help says a bare word is taken as a string', async () => {
    const result = await run(['interactions', 'answer', '--help']);
    // Commander wraps help text to the terminal width; compare it as one line.
    expect(result.stdout.replace(/\s+/g, ' ')).toMatch(
      /A bare word that is not JSON \(yes, Friday\) is taken as a string\./,
    );
  });
});
