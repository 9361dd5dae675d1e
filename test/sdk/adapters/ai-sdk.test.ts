import { generateText, jsonSchema, type ModelMessage, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import type { Continuation } from 'askgate-sdk';
import { approvalRequests, parkApprovals, resumeApprovals, reviewApprovals } from 'askgate-sdk/ai-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  answer,
  deferred,
  inAnHour,
  pendingReviews,
  type ReviewGateway,
  startReviewGateway,
} from './review-gateway.js';

/**
 * askgate-sdk/ai-sdk against the real `ai` v7: generateText with a tool whose `needsApproval` is true stops with a
 * tool-approval-request per call (the AI SDK's own MockLanguageModelV4, from `ai/test`, proposes them); the adapter
 * asks one review per request on a real gateway, a person answers through the answer door, and the next
 * generateText, given the adapter's tool message of approval responses, runs the approved calls and sends the
 * rejection's message to the model as the denied call's reason. Sync (wait) and async (park; a continuation worker
 * finishes the conversation).
 */

let gw: ReviewGateway;

beforeAll(async () => {
  gw = await startReviewGateway('ai');
});

afterAll(async () => {
  await gw?.close();
});

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

/** A model that proposes `calls` on its first turn and then says "done"; `sent` logs what the tool ran with. */
function setup(calls: Array<{ amount: number; to: string }>) {
  const sent: Array<{ amount: number; to: string }> = [];
  let turn = 0;
  const model = new MockLanguageModelV4({
    doGenerate: async () => {
      turn += 1;
      if (turn === 1)
        return {
          content: calls.map((input, i) => ({
            type: 'tool-call' as const,
            toolCallId: `call_${i + 1}`,
            toolName: 'refund',
            input: JSON.stringify(input),
          })),
          finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' },
          usage,
          warnings: [],
        };
      return {
        content: [{ type: 'text' as const, text: 'done' }],
        finishReason: { unified: 'stop' as const, raw: 'stop' },
        usage,
        warnings: [],
      };
    },
  });
  const tools = {
    refund: tool({
      description: 'Refund a customer',
      inputSchema: jsonSchema<{ amount: number; to: string }>({
        type: 'object',
        properties: { amount: { type: 'number' }, to: { type: 'string' } },
        required: ['amount', 'to'],
      }),
      needsApproval: true,
      execute: async (input: { amount: number; to: string }) => {
        sent.push(input);
        return `refunded ${input.amount} to ${input.to}`;
      },
    }),
  };
  return { model, tools, sent };
}

/** What the model was given as the result of each call on its last turn, by call id. */
function toolResultsSeen(model: MockLanguageModelV4): Record<string, unknown> {
  const prompt = model.doGenerateCalls.at(-1)?.prompt ?? [];
  const seen: Record<string, unknown> = {};
  for (const message of prompt)
    if (message.role === 'tool')
      for (const part of message.content) if (part.type === 'tool-result') seen[part.toolCallId] = part.output;
  return seen;
}

describe('askgate-sdk/ai-sdk, sync: reviewApprovals asks, waits, and returns the approval responses', () => {
  it('approve runs the tool; reject runs nothing and its message reaches the model as the denial reason', async () => {
    const { model, tools, sent } = setup([
      { amount: 40, to: 'ada' },
      { amount: 900, to: 'bob' },
    ]);
    const messages: ModelMessage[] = [{ role: 'user', content: 'refund both' }];
    const first = await generateText({ model, tools, messages });
    expect(approvalRequests(first.content)).toHaveLength(2);
    messages.push(...first.response.messages);
    const decided = reviewApprovals(gw.client, first.content, { timeout: 60 });
    const reviews = await pendingReviews(gw.door, 2);
    const byTo = (to: string) => reviews.find((r) => r.action.args['to'] === to);
    expect(byTo('ada')?.action).toEqual({ name: 'refund', args: { amount: 40, to: 'ada' } });
    expect(byTo('ada')?.decisions).toEqual(['approve', 'reject']);
    expect(byTo('ada')?.question).toBe('Allow refund?');
    await answer(gw.door, byTo('bob')?.id as string, { decision: 'reject', message: 'Over the refund limit.' });
    await answer(gw.door, byTo('ada')?.id as string, { decision: 'approve' });
    const message = await decided;
    const ids = approvalRequests(first.content).map((r) => r.approvalId);
    expect(message).toEqual({
      role: 'tool',
      content: [
        { type: 'tool-approval-response', approvalId: ids[0], approved: true },
        { type: 'tool-approval-response', approvalId: ids[1], approved: false, reason: 'Over the refund limit.' },
      ],
    });
    messages.push(message);
    const second = await generateText({ model, tools, messages });
    expect(second.text).toBe('done');
    expect(sent).toEqual([{ amount: 40, to: 'ada' }]);
    expect(toolResultsSeen(model)).toEqual({
      call_1: { type: 'text', value: 'refunded 40 to ada' },
      call_2: { type: 'execution-denied', reason: 'Over the refund limit.' },
    });
  });
});

describe('askgate-sdk/ai-sdk, async: parkApprovals parks a run; resumeApprovals returns the approval responses', () => {
  async function parkAndResume(calls: Array<{ amount: number; to: string }>, runId: string, answers: unknown[]) {
    const { model, tools, sent } = setup(calls);
    const messages: ModelMessage[] = [{ role: 'user', content: 'refund' }];
    const first = await generateText({ model, tools, messages });
    const finished = deferred<string>();
    const worker = await gw.worker(`ai-${runId}`, async (c: Continuation) => {
      const { message, state } = await resumeApprovals(gw.client, c);
      const history = (state as { messages: ModelMessage[] }).messages;
      const next = await generateText({ model, tools, messages: [...history, message] });
      finished.resolve(next.text);
      return null;
    });
    try {
      // The conversation so far travels in the run's state, as JSON.
      const history = JSON.parse(JSON.stringify([...messages, ...first.response.messages])) as ModelMessage[];
      await parkApprovals(gw.client, first.content, {
        run: { run_id: runId, resume: { handler: `ai-${runId}` }, state: { messages: history } },
        expiry_at: inAnHour(),
      });
      const reviews = await pendingReviews(gw.door, calls.length);
      for (const [i, call] of [...calls.entries()].reverse()) {
        await answer(gw.door, reviews.find((r) => r.action.args['to'] === call.to)?.id as string, answers[i]);
      }
      expect(await finished.promise).toBe('done');
      return { model, sent };
    } finally {
      await worker.close();
    }
  }

  it('one call, approved: the resumed conversation runs the tool', async () => {
    const { sent } = await parkAndResume([{ amount: 15, to: 'cy' }], 'ai-async-1', [{ decision: 'approve' }]);
    expect(sent).toEqual([{ amount: 15, to: 'cy' }]);
  });

  it('two calls: each response goes to its own approval request, whatever order they were answered in', async () => {
    const { model, sent } = await parkAndResume(
      [
        { amount: 5, to: 'di' },
        { amount: 700, to: 'ed' },
      ],
      'ai-async-2',
      [{ decision: 'reject', message: 'Ask finance.' }, { decision: 'approve' }],
    );
    expect(sent).toEqual([{ amount: 700, to: 'ed' }]);
    expect(toolResultsSeen(model)).toEqual({
      call_1: { type: 'execution-denied', reason: 'Ask finance.' },
      call_2: { type: 'text', value: 'refunded 700 to ed' },
    });
  });
});
