import type { JobBus } from './job-bus.js';
import type { CompletionJob } from './job-protocol.js';
import type { RunStore } from './run-store.js';

/**
 * Records one completion report an SDK worker made of a handler continuation or turn (either protocol version): the
 * chat reply first (its fixed job id), then the run's completion. Both steps are idempotent, so a report recorded
 * twice changes nothing the second time; a turn belongs to no park (generation 0) and only has its reply; a stale
 * report (its park completed or re-parked since) changes nothing, as RunStore.complete checks the generation.
 */
export async function recordCompletion(report: CompletionJob, to: { runs: RunStore; jobs: JobBus }): Promise<void> {
  const { run_id: runId, generation, thread, type, output, attempt } = report;
  if (thread !== null && type !== 'run.killed') await to.jobs.enqueueReply({ runId, generation, thread, output });
  if (generation > 0) await to.runs.complete(runId, generation, attempt);
}
