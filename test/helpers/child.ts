import type { ChildProcess } from 'node:child_process';

/**
 * Stops a child process and resolves once it has exited: `signal` (SIGTERM by default), then SIGKILL if it is still
 * running after `graceMs`. A child that already exited resolves at once. Shared by the test helpers and bench/.
 */
export async function stopChild(
  child: ChildProcess,
  signal: NodeJS.Signals = 'SIGTERM',
  graceMs = 5_000,
): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}
