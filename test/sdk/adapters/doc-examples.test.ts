import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answer, pendingReviews, type ReviewGateway, startReviewGateway } from './review-gateway.js';

/**
 * Every example of docs/agent-frameworks.md, as written (only the gateway's address is this test's): compiled by tsc
 * with the strict settings of a `tsc --init` project (but exactOptionalPropertyTypes, which langchain's own types
 * fail) against the installed frameworks and the built SDK, run with
 * node, its review answered through the answer door, and what it prints compared with what the answer must
 * produce.
 */

const run = promisify(execFile);
const ROOT = process.cwd();
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const DOC = readFileSync(join(ROOT, 'docs', 'agent-frameworks.md'), 'utf8');
const examples = [...DOC.matchAll(/```ts\n([\s\S]*?)```/g)]
  .map((m) => m[1] as string)
  .filter((code) => code.includes("from 'askgate-sdk/"));

/** Each example by what it imports and calls, the answer a person gives, and what the example then prints. */
const PLANS: Array<{ name: string; marks: string[]; answer: unknown; prints: string }> = [
  {
    name: 'LangChain, sync: an edit reaches the tool',
    marks: ["from 'askgate-sdk/langchain'", 'reviewInterrupt('],
    answer: { decision: 'edit', args: { to: 'team@example.com', subject: 'Release 2.1 is out' } },
    prints: `[ 'sent "Release 2.1 is out" to team@example.com' ]`,
  },
  {
    name: 'LangChain, async: an approval runs the tool in the resumed agent',
    marks: ["from 'askgate-sdk/langchain'", 'parkInterrupt('],
    answer: { decision: 'approve' },
    prints: 'deleted release-1.0',
  },
  {
    name: "AI SDK, sync: a rejection's message reaches the model",
    marks: ["from 'askgate-sdk/ai-sdk'", 'reviewApprovals('],
    answer: { decision: 'reject', message: 'Refunds over 100 need a ticket.' },
    prints: '[{"type":"execution-denied","reason":"Refunds over 100 need a ticket."}]',
  },
  {
    name: 'AI SDK, async: an approval runs the tool in the resumed conversation',
    marks: ["from 'askgate-sdk/ai-sdk'", 'parkApprovals('],
    answer: { decision: 'approve' },
    prints: '[{"type":"text","value":"refunded 480 to bob"}]',
  },
  {
    name: 'OpenAI Agents, sync: an approval runs the tool',
    marks: ["from 'askgate-sdk/openai-agents'", 'reviewInterruptions('],
    answer: { decision: 'approve' },
    prints: '[{"type":"text","text":"refunded 75 to ada"}]',
  },
  {
    name: "OpenAI Agents, async: a rejection's message reaches the model in the restored run",
    marks: ["from 'askgate-sdk/openai-agents'", 'parkInterruptions('],
    answer: { decision: 'reject', message: 'Needs a manager.' },
    prints: '[{"type":"text","text":"Needs a manager."}]',
  },
];

let gw: ReviewGateway;
let dir: string;

beforeAll(async () => {
  gw = await startReviewGateway('docs');
  // Inside the repository's node_modules, so the examples resolve langchain, ai, @openai/agents and askgate-sdk as
  // a user's project would; out of the way of biome and the test type-check.
  dir = mkdtempSync(join(ROOT, 'node_modules', '.agent-framework-examples-'));
  const files = PLANS.map((plan, i) => {
    const code = examples.find((e) => plan.marks.every((mark) => e.includes(mark)));
    if (code === undefined) throw new Error(`docs/agent-frameworks.md has no example for: ${plan.name}`);
    writeFileSync(join(dir, `example-${i}.mts`), code.replaceAll("'http://127.0.0.1:8080'", JSON.stringify(gw.url)));
    return `example-${i}.mts`;
  });
  const options = {
    module: 'nodenext',
    target: 'es2022',
    strict: true,
    noUncheckedIndexedAccess: true,
    verbatimModuleSyntax: true,
    skipLibCheck: true,
    types: ['node'],
    typeRoots: [join(ROOT, 'node_modules', '@types')],
  };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: options, files }));
  try {
    await run(process.execPath, [TSC, '-p', dir], { cwd: dir, timeout: 300_000 });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    throw new Error(`the examples do not compile:\n${e.stdout ?? ''}${e.stderr ?? ''}`);
  }
}, 360_000);

afterAll(async () => {
  await gw?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

/** Runs a compiled example, answers the one review it asks with `value`, and returns what it printed. */
async function runAndAnswer(file: string, value: unknown): Promise<string> {
  const child = spawn(process.execPath, [file], {
    cwd: dir,
    env: { ...process.env, ASKGATE_TOKEN: gw.token },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  try {
    const [review] = await pendingReviews(gw.door, 1);
    await answer(gw.door, review?.id as string, value);
  } catch (error) {
    child.kill();
    throw new Error(`${String(error)}; the example wrote: ${stderr}`);
  }
  expect(await exited, stderr).toBe(0);
  return stdout.trim();
}

describe('docs/agent-frameworks.md', () => {
  it('has the six examples this test runs, and no other', () => {
    expect(examples).toHaveLength(PLANS.length);
  });

  for (const [i, plan] of PLANS.entries())
    it(plan.name, async () => {
      expect(await runAndAnswer(`example-${i}.mjs`, plan.answer)).toBe(plan.prints);
    }, 120_000);
});
