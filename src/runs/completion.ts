import type { JobBus } from './job-bus.js';
import type { CompletionJob } from './job-protocol.js';
import type { RunStore } from './run-store.js';

/**
 * Whether recording `report` posts a chat reply before the run's completion: a run reached over chat, unless it was
 * killed. A park's continuation that posts none has its completion recorded in the report's own step (the job bus's
 * report), and only the others go through the completions stream to recordCompletion.
 */
export function postsReply(report: Pick<CompletionJob, 'thread' | 'type'>): boolean {
  return report.thread !== null && report.type !== 'run.killed';
}

/**
 * Records one completion report an SDK worker made of a handler continuation or turn: the
 * chat reply first (its fixed job id), then the run's completion. Both steps are idempotent, so a report recorded
 * twice changes nothing the second time; a turn belongs to no park (generation 0) and only has its reply; a stale
 * report (its park completed or re-parked since) changes nothing, as RunStore.complete checks the generation.
 */
export async function recordCompletion(report: CompletionJob, to: { runs: RunStore; jobs: JobBus }): Promise<void> {
  const { run_id: runId, generation, thread, output, attempt } = report;
  if (thread !== null && postsReply(report)) await to.jobs.enqueueReply({ runId, generation, thread, output });
  if (generation > 0) await to.runs.complete(runId, generation, attempt);
}
