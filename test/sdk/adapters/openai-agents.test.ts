import {
  Agent,
  type Model,
  type ModelRequest,
  type ModelResponse,
  RunState,
  run,
  setTracingDisabled,
  tool,
  Usage,
} from '@openai/agents';
import type { Continuation } from 'askgate-sdk';
import { parkInterruptions, resumeInterruptions, reviewInterruptions } from 'askgate-sdk/openai-agents';
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
 * askgate-sdk/openai-agents against the real `@openai/agents`: an Agent whose tool has `needsApproval` stops its run
 * with `result.interruptions` (a Model written here, to the SDK's Model interface, proposes the calls); the adapter
 * asks one review per interruption on a real gateway, a person answers through the answer door, and the adapter
 * approves or rejects each on the run state: `run(agent, state)` then runs the approved calls and sends a
 * rejection's message to the model as the call's output. Sync (wait) and async (the run state parked with the run,
 * restored by a continuation worker).
 */

setTracingDisabled(true);

let gw: ReviewGateway;

beforeAll(async () => {
  gw = await startReviewGateway('oa');
});

afterAll(async () => {
  await gw?.close();
});

/** Proposes `calls` on its first turn and then says "done"; `inputs` keeps what each turn was given. */
class ScriptedModel implements Model {
  turn = 0;
  readonly inputs: ModelRequest['input'][] = [];
  constructor(private readonly calls: Array<{ amount: number; to: string }>) {}

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.turn += 1;
    this.inputs.push(request.input);
    if (this.turn === 1)
      return {
        usage: new Usage(),
        output: this.calls.map((args, i) => ({
          type: 'function_call' as const,
          callId: `call_${i + 1}`,
          name: 'refund',
          arguments: JSON.stringify(args),
          status: 'completed' as const,
        })),
      };
    return {
      usage: new Usage(),
      output: [
        {
          type: 'message' as const,
          role: 'assistant' as const,
          status: 'completed' as const,
          content: [{ type: 'output_text' as const, text: 'done' }],
        },
      ],
    };
  }

  // biome-ignore lint/correctness/useYield: this model is only called through run(), never streamed.
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('ScriptedModel does not stream');
  }

  /** The outputs of the calls the model was given on its last turn, by call id. */
  lastCallOutputs(): Record<string, unknown> {
    const input = this.inputs.at(-1);
    const items = Array.isArray(input) ? input : [];
    const out: Record<string, unknown> = {};
    for (const item of items)
      if (item.type === 'function_call_result') out[item.callId] = (item.output as { text?: string }).text;
    return out;
  }
}

function setup(calls: Array<{ amount: number; to: string }>) {
  const sent: Array<{ amount: number; to: string }> = [];
  const model = new ScriptedModel(calls);
  const refund = tool({
    name: 'refund',
    description: 'Refund a customer',
    parameters: z.object({ amount: z.number(), to: z.string() }),
    needsApproval: true,
    execute: async (input) => {
      sent.push(input);
      return `refunded ${input.amount} to ${input.to}`;
    },
  });
  const agent = new Agent({ name: 'support', model, tools: [refund] });
  return { agent, model, sent };
}

describe('askgate-sdk/openai-agents, sync: reviewInterruptions asks, waits, and decides the run state', () => {
  it('approve runs the call; reject runs nothing and its message is the output the model reads', async () => {
    const { agent, model, sent } = setup([
      { amount: 30, to: 'ada' },
      { amount: 800, to: 'bob' },
    ]);
    const first = await run(agent, 'refund both');
    expect(first.interruptions).toHaveLength(2);
    const decided = reviewInterruptions(gw.client, first, { timeout: 60 });
    const reviews = await pendingReviews(gw.door, 2);
    const byTo = (to: string) => reviews.find((r) => r.action.args['to'] === to);
    expect(byTo('bob')?.action).toEqual({ name: 'refund', args: { amount: 800, to: 'bob' } });
    expect(byTo('bob')?.decisions).toEqual(['approve', 'reject']);
    await answer(gw.door, byTo('bob')?.id as string, { decision: 'reject', message: 'Needs a manager.' });
    await answer(gw.door, byTo('ada')?.id as string, { decision: 'approve' });
    const state = await decided;
    const second = await run(agent, state);
    expect(second.finalOutput).toBe('done');
    expect(sent).toEqual([{ amount: 30, to: 'ada' }]);
    expect(model.lastCallOutputs()).toEqual({ call_1: 'refunded 30 to ada', call_2: 'Needs a manager.' });
  });
});

describe('askgate-sdk/openai-agents, async: parkInterruptions parks; resumeInterruptions restores and decides', () => {
  async function parkAndResume(calls: Array<{ amount: number; to: string }>, runId: string, answers: unknown[]) {
    const { agent, model, sent } = setup(calls);
    const first = await run(agent, 'refund');
    const finished = deferred<unknown>();
    const worker = await gw.worker(`oa-${runId}`, async (c: Continuation) => {
      const { runState, state } = await resumeInterruptions(gw.client, c, (s) => RunState.fromString(agent, s));
      expect(state).toEqual({ ticket: runId });
      finished.resolve((await run(agent, runState)).finalOutput);
      return null;
    });
    try {
      await parkInterruptions(gw.client, first, {
        run: { run_id: runId, resume: { handler: `oa-${runId}` }, state: { ticket: runId } },
        expiry_at: inAnHour(),
      });
      const reviews = await pendingReviews(gw.door, calls.length);
      for (const [i, call] of [...calls.entries()].reverse())
        await answer(gw.door, reviews.find((r) => r.action.args['to'] === call.to)?.id as string, answers[i]);
      expect(await finished.promise).toBe('done');
      return { model, sent };
    } finally {
      await worker.close();
    }
  }

  it('one call, rejected: the restored run runs nothing and the model reads the message', async () => {
    const { model, sent } = await parkAndResume([{ amount: 60, to: 'cy' }], 'oa-async-1', [
      { decision: 'reject', message: 'Refunds are paused today.' },
    ]);
    expect(sent).toEqual([]);
    expect(model.lastCallOutputs()).toEqual({ call_1: 'Refunds are paused today.' });
  });

  it('two calls: each decision lands on its own call, whatever order they were answered in', async () => {
    const { model, sent } = await parkAndResume(
      [
        { amount: 10, to: 'di' },
        { amount: 20, to: 'ed' },
      ],
      'oa-async-2',
      [{ decision: 'approve' }, { decision: 'reject', message: 'Not ed.' }],
    );
    expect(sent).toEqual([{ amount: 10, to: 'di' }]);
    expect(model.lastCallOutputs()).toEqual({ call_1: 'refunded 10 to di', call_2: 'Not ed.' });
  });
});
