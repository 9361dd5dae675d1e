import { execFile } from 'node:child_process';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { api, type Api } from '../helpers/http.js';
import { CLI, httpClient, pendingOne, stdioClient } from './harness.js';

/**
 * Presets as MCP tools, through the SDK's own Client against the real server on both transports: a named preset is
 * listed as `preset_<name>` with the fields it leaves open as its input schema; a call asks through the preset door,
 * so the fixed fields stay fixed (a fixed field in the arguments is a tool error naming it, and nothing is asked);
 * a preset a blocked call cannot wait on (a confirmation, a verifier) and one that does not exist are not offered.
 */

let gw: TestGateway;
let http: Api;
beforeAll(async () => {
  gw = await startTestGateway({
    INTERACTIONS_PUBLIC_BASE_URL: 'https://askgate.example.com',
    ASKGATE_MCP_PRESETS: 'deploy, tightened,deposit,callback-only,nowhere',
  });
  http = api(gw.url, gw.token);
  const presets: Record<string, unknown> = {
    deploy: { ask: { question: 'Deploy build 412 to production?', answer_format: 'confirm', group_id: 'deploys' } },
    tightened: { ask: { question: 'Roll back?', answer_format: 'confirm' } },
    deposit: {
      ask: { question: 'Pay the deposit' },
      confirmation: {
        provider: 'stripe_checkout',
        reference: 'order-7',
        return_url: 'https://shop.example/thanks',
        line_items: [{ price: 'price_1', quantity: 1 }],
      },
    },
    'callback-only': { ask: { answer_format: 'external', verifier: { name: 'shared_secret' } } },
  };
  for (const [name, body] of Object.entries(presets)) {
    const put = await http.put(`/api/presets/${name}`, body);
    expect(put.status, `${name}: ${JSON.stringify(put.json)}`).toBe(200);
  }
});
afterAll(async () => {
  await gw?.close();
});

/** The sync ask fields a caller may send to `ask_human`, less what the deploy preset fixes. */
const DEPLOY_OPEN = [
  'action',
  'approvers',
  'channel',
  'choices',
  'decisions',
  'deliver',
  'media',
  'quorum',
  'recipient',
  'schema',
  'timeout',
];

async function pending(): Promise<unknown[]> {
  return (await http.get('/api/interactions?status=pending')).json['items'] as unknown[];
}

function text(result: CallToolResult): string {
  return (result.content[0] as { text: string }).text;
}

const transports: Array<[string, () => Promise<Client>]> = [
  ['stdio', () => stdioClient(gw, ['--preset', 'deploy', '--preset', 'tightened'])],
  ['Streamable HTTP', () => httpClient(gw)],
];

describe.each(transports)('over %s', (_name, connect) => {
  it('lists each offerable preset with its open fields as the input schema, and leaves the others out', async () => {
    const client = await connect();
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(['ask_human', 'preset_deploy', 'preset_tightened']);
      const deploy = tools.find((t) => t.name === 'preset_deploy');
      expect(Object.keys(deploy?.inputSchema.properties ?? {}).sort()).toEqual(DEPLOY_OPEN);
      expect(deploy?.inputSchema.required ?? []).toEqual([]);
      expect(deploy?.inputSchema['additionalProperties']).toBe(false);
      expect(deploy?.description).toContain('Deploy build 412 to production?');
      expect(deploy?.description).toContain('fixes question, answer_format, group_id');
      expect(Object.keys(deploy?.outputSchema?.properties ?? {}).sort()).toEqual(
        ['answer', 'answered_by', 'params', 'reply_to', 'surface'].sort(),
      );
    } finally {
      await client.close();
    }
  });

  it('asks through the preset door with the fixed fields, blocks until answered, and returns the result', async () => {
    const client = await connect();
    try {
      const call = client.callTool({ name: 'preset_deploy', arguments: { timeout: 60 } }, undefined, {
        timeout: 60_000,
      });
      const question = await pendingOne(gw);
      expect(question).toMatchObject({
        question: 'Deploy build 412 to production?',
        answer_format: 'confirm',
        group_id: 'deploys',
      });
      expect((await http.post(`/api/interactions/${question['id']}/answer`, { answer: true })).status).toBe(200);
      const result = (await call) as CallToolResult;
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ answer: true, reply_to: null, params: null });
    } finally {
      await client.close();
    }
  });

  it('refuses a fixed field, naming it, and an unknown one, and asks nothing', async () => {
    const client = await connect();
    try {
      const fixed = (await client.callTool({
        name: 'preset_deploy',
        arguments: { question: 'Deploy something else?', timeout: 60 },
      })) as CallToolResult;
      expect(fixed.isError).toBe(true);
      expect(text(fixed)).toContain('question is fixed by preset deploy; drop it from the arguments at question');
      const unknown = (await client.callTool({
        name: 'preset_deploy',
        arguments: { urgency: 'high' },
      })) as CallToolResult;
      expect(unknown.isError).toBe(true);
      expect(text(unknown)).toContain('urgency is not a field of this tool');
      expect(await pending()).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('keeps a field fixed after it was listed: the preset door refuses it, named, once a new version fixes it', async () => {
    await http.put('/api/presets/tightened', { ask: { question: 'Roll back?', answer_format: 'confirm' } });
    const client = await connect();
    try {
      const listed = (await client.listTools()).tools.find((t) => t.name === 'preset_tightened');
      expect(Object.keys(listed?.inputSchema.properties ?? {})).toContain('timeout');
      // A new version fixes timeout after the tool was listed with it open.
      expect(
        (
          await http.put('/api/presets/tightened', {
            ask: { question: 'Roll back?', answer_format: 'confirm', timeout: 30 },
          })
        ).status,
      ).toBe(200);
      const result = (await client.callTool({
        name: 'preset_tightened',
        arguments: { timeout: 600 },
      })) as CallToolResult;
      expect(result.isError).toBe(true);
      expect(text(result)).toBe(
        'refused: timeout is fixed by preset tightened; drop it from the request. (field timeout); nothing was asked.',
      );
      expect(await pending()).toEqual([]);
    } finally {
      await client.close();
    }
  });
});

describe('askgate mcp --preset', () => {
  /** Runs `askgate mcp` with `args` and resolves with its exit code and stderr once it stops. */
  function runMcp(args: string[]): Promise<{ code: number | null; stderr: string }> {
    return new Promise((resolve) => {
      const child = execFile(
        process.execPath,
        [CLI, 'mcp', ...args],
        { env: { PATH: process.env['PATH'] ?? '', ASKGATE_URL: gw.url, ASKGATE_TOKEN: gw.token }, timeout: 20_000 },
        (error, _stdout, stderr) => resolve({ code: error === null ? 0 : (child.exitCode ?? -1), stderr }),
      );
    });
  }

  it.each([
    ['deposit', /--preset deposit cannot be offered as a tool: it is a confirmation preset/],
    ['callback-only', /--preset callback-only cannot be offered as a tool: it fixes a verifier/],
    ['nowhere', /--preset nowhere cannot be offered as a tool: preset nowhere does not exist/],
  ])('refuses to start with %s, saying why', async (name, words) => {
    const { code, stderr } = await runMcp(['--preset', 'deploy', '--preset', name]);
    expect(code).toBe(1);
    expect(stderr).toMatch(words);
  });
});

describe('ASKGATE_MCP_PRESETS', () => {
  it('refuses a name that is not a preset name, naming the variable', async () => {
    await expect(startTestGateway({ ASKGATE_MCP_PRESETS: 'deploy,bad name' })).rejects.toThrow(
      /ASKGATE_MCP_PRESETS.*"bad name" is not a preset name/,
    );
  });

  it('offers no preset tool when unset', async () => {
    const plain = await startTestGateway();
    try {
      const client = await httpClient(plain);
      try {
        expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['ask_human']);
      } finally {
        await client.close();
      }
    } finally {
      await plain.close();
    }
  });
});
