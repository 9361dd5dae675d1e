import type { RunState, RunToolApprovalItem } from '@openai/agents';
import type { AskgateClient } from '../client.js';
import { AskgateSdkError } from '../errors.js';
import type { RequestOptions } from '../transport.js';
import {
  type DecidedReview,
  decideReviews,
  type ParkedReviews,
  type PendingReview,
  parkReviews,
  type ReviewContinuation,
  type ReviewParkOptions,
  type ReviewWaitOptions,
  resumedReviews,
} from './review.js';

/**
 * `askgate-sdk/openai-agents`: the OpenAI Agents SDK (`@openai/agents`) stops a run at a tool with `needsApproval`
 * and lists the calls in `result.interruptions`; the run continues with `run(agent, result.state)` once each was
 * approved (`state.approve(item)`) or rejected (`state.reject(item, { message })`, the message sent to the model).
 * Each interruption becomes one review ask offering approve and reject (the SDK has no edit and no respond). Only
 * `@openai/agents`' types are imported: the module loads without it.
 */

// The review types and EXPIRED_MESSAGE, the same from every adapter.
export * from './shared-exports.js';

/** What this adapter reads of a run's result: `run(agent, input)` returns one (`RunResult`, `StreamedRunResult`). */
// biome-ignore lint/suspicious/noExplicitAny: RunState's own parameters (context, agent) are whatever the run's are.
type AnyRunState = RunState<any, any>;
export interface InterruptedRun {
  readonly interruptions: readonly RunToolApprovalItem[];
  readonly state: AnyRunState;
}

/** The call id that names an interruption within its run (a function call's `callId`, else the item's `id`). */
function callIdOf(item: RunToolApprovalItem): string {
  const raw = item.rawItem as { callId?: string; id?: string };
  const id = raw.callId ?? raw.id;
  if (id === undefined) throw new AskgateSdkError(`the interruption for ${item.name ?? 'a tool'} has no call id`);
  return id;
}

function argsOf(item: RunToolApprovalItem): Record<string, unknown> {
  const text = item.arguments;
  if (text === undefined) return {};
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
    return { input: parsed };
  } catch {
    return { input: text };
  }
}

function pendingReviews(items: readonly RunToolApprovalItem[]): PendingReview[] {
  return items.map((item) => ({
    key: callIdOf(item),
    action: { name: item.name ?? item.toolName ?? 'tool', args: argsOf(item) },
    decisions: ['approve', 'reject'],
  }));
}

/** Approves or rejects each decided interruption on `state` (matched by call id). */
function apply(state: AnyRunState, reviews: readonly DecidedReview[]): void {
  const items = state.getInterruptions();
  for (const review of reviews) {
    const item = items.find((i) => callIdOf(i) === review.key);
    if (item === undefined) throw new AskgateSdkError(`the run state has no interruption for call ${review.key}`);
    const { answer } = review;
    if (answer.decision === 'approve') state.approve(item);
    else if (answer.decision === 'reject')
      state.reject(item, answer.message === undefined ? {} : { message: answer.message });
    else throw new AskgateSdkError(`the OpenAI Agents SDK has no decision for a review answered ${answer.decision}`);
  }
}

/**
 * Sync mode: asks one review per interruption, waits for every answer, approves or rejects each on `result.state`
 * and returns that state: continue with `run(agent, state)`.
 */
export async function reviewInterruptions(
  client: AskgateClient,
  result: InterruptedRun,
  options: ReviewWaitOptions = {},
): Promise<AnyRunState> {
  apply(result.state, await decideReviews(client, pendingReviews(result.interruptions), options));
  return result.state;
}

/**
 * Async mode: parks `options.run` on one review per interruption and returns at once. The run state
 * (`result.state.toString()`) is kept in the park beside your `options.run.state`; `resumeInterruptions` restores it.
 */
export async function parkInterruptions(
  client: AskgateClient,
  result: InterruptedRun,
  options: ReviewParkOptions,
): Promise<ParkedReviews> {
  return parkReviews(client, pendingReviews(result.interruptions), options, result.state.toString());
}

/**
 * The continuation of a run parked by `parkInterruptions`: restores its run state with `restore` (pass
 * `(s) => RunState.fromString(agent, s)`), approves or rejects each interruption on it, and returns it with the
 * `run.state` it was parked with. Continue with `run(agent, runState)`.
 */
export async function resumeInterruptions<S extends AnyRunState>(
  client: AskgateClient,
  continuation: ReviewContinuation,
  restore: (serialized: string) => Promise<S>,
  options: RequestOptions = {},
): Promise<{ runState: S; state: unknown }> {
  const resumed = await resumedReviews(client, continuation, options);
  if (typeof resumed.framework !== 'string')
    throw new AskgateSdkError(`run ${continuation.run_id} was not parked by parkInterruptions (no run state)`);
  const runState = await restore(resumed.framework);
  apply(runState, resumed.reviews);
  return { runState, state: resumed.state };
}
