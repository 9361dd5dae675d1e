import { Command, MemorySaver } from '@langchain/langgraph';
import type { Continuation } from 'askgate-sdk';
import { parkInterrupt, resumeInterrupt, reviewInterrupt } from 'askgate-sdk/langchain';
import { createAgent, FakeToolCallingModel, type HITLRequest, humanInTheLoopMiddleware, tool } from 'langchain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  answer,
  deferred,
  inAnHour,
  pendingReviews,
  type ReviewGateway,
  startReviewGateway,
} from './review-gateway.js';

/**
 * askgate-sdk/langchain against the real `langchain` v1: an agent made by createAgent with humanInTheLoopMiddleware
 * (LangChain's own FakeToolCallingModel proposes the tool calls, a MemorySaver keeps the thread) pauses with its
 * interrupt; the adapter turns each action request into a review ask on a real gateway, a person answers through
 * the answer door, and the agent resumes with the adapter's decisions: an approval runs the tool as proposed, an edit
 * runs it with the person's args, a rejection runs nothing and its message reaches the model. Sync (wait) and async
 * (park, then a continuation worker resumes the agent).
 */

const ARGS_SCHEMA = {
  type: 'object',
  properties: { to: { type: 'string', format: 'email' }, subject: { type: 'string', maxLength: 200 } },
  required: ['to', 'subject'],
  additionalProperties: false,
};

let gw: ReviewGateway;

beforeAll(async () => {
  gw = await startReviewGateway('lc');
});

afterAll(async () => {
  await gw?.close();
});

/** An agent that proposes `calls` in its first turn, then answers with every message it saw; `sent` logs the tool. */
function emailAgent(calls: Array<{ to: string; subject: string }>) {
  const sent: Array<{ to: string; subject: string }> = [];
  const sendEmail = tool(
    async (args: { to: string; subject: string }) => {
      sent.push(args);
      return `sent to ${args.to}`;
    },
    { name: 'send_email', description: 'Send an email', schema: z.object({ to: z.string(), subject: z.string() }) },
  );
  const model = new FakeToolCallingModel({
    toolCalls: [calls.map((args, i) => ({ name: 'send_email', args, id: `call_${i + 1}` })), []],
  });
  const agent = createAgent({
    model,
    tools: [sendEmail],
    middleware: [
      humanInTheLoopMiddleware({
        interruptOn: { send_email: { allowedDecisions: ['approve', 'edit', 'reject'], argsSchema: ARGS_SCHEMA } },
      }),
    ],
    checkpointer: new MemorySaver(),
  });
  return { agent, sent };
}

type EmailAgent = ReturnType<typeof emailAgent>['agent'];

/** Runs the agent to its interrupt and returns the interrupt's value. */
async function interrupted(agent: EmailAgent, threadId: string): Promise<HITLRequest> {
  const result = await agent.invoke(
    { messages: [{ role: 'user', content: 'email the team' }] },
    { configurable: { thread_id: threadId } },
  );
  const value = result.__interrupt__?.[0]?.value as HITLRequest | undefined;
  expect(value?.actionRequests.map((a) => a.name)).toEqual(expect.arrayContaining(['send_email']));
  return value as HITLRequest;
}

/** The text of the last message of a finished run. */
function lastText(result: { messages: Array<{ content: unknown }> }): string {
  return String(result.messages.at(-1)?.content);
}

describe('askgate-sdk/langchain, sync: reviewInterrupt asks, waits, and returns the resume decisions', () => {
  it('asks a review with the action, its decisions and args schema; approve runs the tool as proposed', async () => {
    const { agent, sent } = emailAgent([{ to: 'team@example.com', subject: 'Release' }]);
    const request = await interrupted(agent, 'sync-approve');
    const decided = reviewInterrupt(gw.client, request, { question: 'Send the release email?', timeout: 60 });
    const [review] = await pendingReviews(gw.door, 1);
    expect(review?.question).toBe('Send the release email?');
    expect(review?.action).toEqual({
      name: 'send_email',
      args: { to: 'team@example.com', subject: 'Release' },
      description:
        'Tool execution requires approval\n\nTool: send_email\n' +
        'Args: {\n  "to": "team@example.com",\n  "subject": "Release"\n}',
    });
    expect(review?.decisions).toEqual(['approve', 'edit', 'reject']);
    expect(review?.schema).toEqual(ARGS_SCHEMA);
    await answer(gw.door, review?.id as string, { decision: 'approve' });
    const resume = await decided;
    expect(resume).toEqual({ decisions: [{ type: 'approve' }] });
    await agent.invoke(new Command({ resume }), { configurable: { thread_id: 'sync-approve' } });
    expect(sent).toEqual([{ to: 'team@example.com', subject: 'Release' }]);
  });

  it("edit: the person's args reach the tool", async () => {
    const { agent, sent } = emailAgent([{ to: 'all@example.com', subject: 'Release' }]);
    const request = await interrupted(agent, 'sync-edit');
    const decided = reviewInterrupt(gw.client, request, { timeout: 60 });
    const [review] = await pendingReviews(gw.door, 1);
    expect(review?.question).toBe('Allow send_email?');
    await answer(gw.door, review?.id as string, {
      decision: 'edit',
      args: { to: 'team@example.com', subject: 'Release 2.1' },
    });
    const resume = await decided;
    await agent.invoke(new Command({ resume }), { configurable: { thread_id: 'sync-edit' } });
    expect(sent).toEqual([{ to: 'team@example.com', subject: 'Release 2.1' }]);
  });

  it("reject: the tool does not run and the person's message reaches the model", async () => {
    const { agent, sent } = emailAgent([{ to: 'all@example.com', subject: 'Release' }]);
    const request = await interrupted(agent, 'sync-reject');
    const decided = reviewInterrupt(gw.client, request, { timeout: 60 });
    const [review] = await pendingReviews(gw.door, 1);
    await answer(gw.door, review?.id as string, { decision: 'reject', message: 'Not before the changelog is out.' });
    const resume = await decided;
    expect(resume).toEqual({ decisions: [{ type: 'reject', message: 'Not before the changelog is out.' }] });
    const result = await agent.invoke(new Command({ resume }), { configurable: { thread_id: 'sync-reject' } });
    expect(sent).toEqual([]);
    const tool = result.messages.find((m) => m.type === 'tool');
    expect(tool?.content).toBe('Not before the changelog is out.');
    // FakeToolCallingModel answers with the text of every message it was given: the rejection was among them.
    expect(lastText(result)).toContain('Not before the changelog is out.');
  });

  it('two calls in one interrupt are two reviews, and each decision goes back in the order of the calls', async () => {
    const { agent, sent } = emailAgent([
      { to: 'a@example.com', subject: 'One' },
      { to: 'b@example.com', subject: 'Two' },
    ]);
    const request = await interrupted(agent, 'sync-two');
    const decided = reviewInterrupt(gw.client, request, { timeout: 60 });
    const reviews = await pendingReviews(gw.door, 2);
    const byTo = (to: string) => reviews.find((r) => r.action.args['to'] === to)?.id as string;
    // The second call answered first.
    await answer(gw.door, byTo('b@example.com'), { decision: 'approve' });
    await answer(gw.door, byTo('a@example.com'), {
      decision: 'edit',
      args: { to: 'a@example.com', subject: 'One, edited' },
    });
    const resume = await decided;
    expect(resume.decisions.map((d) => d.type)).toEqual(['edit', 'approve']);
    await agent.invoke(new Command({ resume }), { configurable: { thread_id: 'sync-two' } });
    expect(sent).toEqual([
      { to: 'a@example.com', subject: 'One, edited' },
      { to: 'b@example.com', subject: 'Two' },
    ]);
  });
});

describe('askgate-sdk/langchain, async: parkInterrupt parks a run; resumeInterrupt makes the resume value', () => {
  /** Parks the agent's interrupt on a run with a handler, and resumes the agent there. */
  async function parkAndResume(calls: Array<{ to: string; subject: string }>, runId: string, answers: unknown[]) {
    const { agent, sent } = emailAgent(calls);
    const request = await interrupted(agent, runId);
    const finished = deferred<{ messages: Array<{ content: unknown; type?: string }> }>();
    const worker = await gw.worker(`lc-${runId}`, async (c: Continuation) => {
      const { resume, state } = await resumeInterrupt(gw.client, c);
      const threadId = (state as { thread_id: string }).thread_id;
      finished.resolve(await agent.invoke(new Command({ resume }), { configurable: { thread_id: threadId } }));
      return null;
    });
    try {
      const parked = await parkInterrupt(gw.client, request, {
        run: { run_id: runId, resume: { handler: `lc-${runId}` }, state: { thread_id: runId } },
        expiry_at: inAnHour(),
      });
      expect(parked.interactions.map((r) => r.status)).toEqual(calls.map(() => 'pending'));
      const reviews = await pendingReviews(gw.door, calls.length);
      // Answered last call first: the run resumes once, with every answer.
      for (const [i, call] of [...calls.entries()].reverse()) {
        const id = reviews.find((r) => r.action.args['subject'] === call.subject)?.id as string;
        await answer(gw.door, id, answers[i]);
      }
      return { result: await finished.promise, sent };
    } finally {
      await worker.close();
    }
  }

  it('one call, rejected: the resumed agent runs no tool and the model reads the message', async () => {
    const { result, sent } = await parkAndResume([{ to: 'all@example.com', subject: 'Release' }], 'lc-async-1', [
      { decision: 'reject', message: 'Wait for legal.' },
    ]);
    expect(sent).toEqual([]);
    expect(lastText(result)).toContain('Wait for legal.');
  });

  it('a review expiring on a run parked with on_expiry "resume" comes back as a rejection', async () => {
    const { agent, sent } = emailAgent([{ to: 'all@example.com', subject: 'Release' }]);
    const request = await interrupted(agent, 'lc-expiry');
    const finished = deferred<{ messages: Array<{ content: unknown }> }>();
    const worker = await gw.worker('lc-expiry', async (c: Continuation) => {
      const { resume } = await resumeInterrupt(gw.client, c);
      expect(resume).toEqual({
        decisions: [{ type: 'reject', message: 'Nobody reviewed this action before the review expired.' }],
      });
      finished.resolve(await agent.invoke(new Command({ resume }), { configurable: { thread_id: 'lc-expiry' } }));
      return null;
    });
    try {
      await parkInterrupt(gw.client, request, {
        run: { run_id: 'lc-expiry', resume: { handler: 'lc-expiry' } },
        // Nobody answers: the gateway's deadline sweep expires it.
        expiry_at: new Date(Date.now() + 2_000).toISOString(),
        on_expiry: 'resume',
      });
      const result = await finished.promise;
      expect(sent).toEqual([]);
      expect(lastText(result)).toContain('Nobody reviewed this action before the review expired.');
    } finally {
      await worker.close();
    }
  });

  it('a run killed before its reviews were answered does not resume the agent: resumeInterrupt throws', async () => {
    const { agent } = emailAgent([{ to: 'all@example.com', subject: 'Release' }]);
    const request = await interrupted(agent, 'lc-killed');
    const thrown = deferred<unknown>();
    const worker = await gw.worker('lc-killed', async (c: Continuation) => {
      thrown.resolve(await resumeInterrupt(gw.client, c).catch((error: unknown) => error));
      return null;
    });
    try {
      const parked = await parkInterrupt(gw.client, request, {
        run: { run_id: 'lc-killed', resume: { handler: 'lc-killed' } },
        expiry_at: inAnHour(),
      });
      const id = parked.interactions[0]?.id as string;
      await gw.client.cancel(id);
      const error = await thrown.promise;
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toBe(`run lc-killed was killed (${id})`);
    } finally {
      await worker.close();
    }
  });

  it('two calls: edit and approve come back in the order of the calls', async () => {
    const { sent } = await parkAndResume(
      [
        { to: 'a@example.com', subject: 'One' },
        { to: 'b@example.com', subject: 'Two' },
      ],
      'lc-async-2',
      [{ decision: 'approve' }, { decision: 'edit', args: { to: 'c@example.com', subject: 'Two, edited' } }],
    );
    expect(sent).toEqual([
      { to: 'a@example.com', subject: 'One' },
      { to: 'c@example.com', subject: 'Two, edited' },
    ]);
  });
});
