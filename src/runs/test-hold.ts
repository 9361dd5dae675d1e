import { writeSync } from 'node:fs';

/**
 * TEST ONLY: the fault suite's way to stop a process at one exact point — after the claim that settled a run
 * committed in Redis, before the run's resume job is enqueued — and SIGKILL it there (test/faults/worker-kill.fault.ts).
 * Reached only with `ASKGATE_TEST_HOLD_BEFORE_ENQUEUE=1`, which config.ts refuses under `NODE_ENV=production`.
 *
 * The process is frozen, not just this call: the event loop blocks, so nothing else it runs (its own ready-runs
 * sweep, its job locks) can make up for the lost enqueue, exactly as if it had died here. The line is written
 * synchronously so the test sees it before the freeze.
 */
export function freezeBeforeEnqueue(runId: string): void {
  writeSync(2, `askgate test hook: the claim settling run ${runId} committed; frozen before its enqueue\n`);
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
}
