import type { JobBus } from './job-bus.js';
import { handlerJob } from './job-protocol.js';
import type { RunView } from './run-store.js';

/**
 * Handler or webhook: the one place that decides where a due park's continuation goes, from its checkpoint's resume
 * target. A `{"handler"}` target's continuation is handed to that handler's SDK workers under the park's
 * deterministic resume id (`jobId`), and `{to: 'handler'}` says the askgate worker has nothing more to do; a
 * `{"webhook"}` target answers `{to: 'webhook', url}`: the askgate worker's resume job POSTs it (RunResumer). Both callers — the settling
 * claim (ParkService.settled, one hop for a handler) and the resume job (after a kill's teardown, or the sweep) —
 * hand on the same job under the same id, so whichever comes second adds nothing.
 */
export async function dispatchContinuation(
  run: RunView,
  jobId: string,
  jobs: JobBus,
): Promise<{ to: 'handler' } | { to: 'webhook'; url: string }> {
  if ('webhook' in run.resume) return { to: 'webhook', url: run.resume.webhook };
  await jobs.enqueueHandler(run.resume.handler, jobId, handlerJob(run, jobId));
  return { to: 'handler' };
}
