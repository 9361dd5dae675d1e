import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';

/**
 * CPU time of the processes a timed phase keeps busy, read from /proc/<pid>/stat (user + system), so a benchmark can
 * say where each operation's CPU went: on two shared cores the load generator, the server and redis-server compete,
 * and the throughput ratio follows the sum. Where /proc is missing (not Linux), every reading is null and the
 * benchmark reports no split.
 */

/** Clock ticks per second of /proc/<pid>/stat's utime and stime (USER_HZ, 100 on every Linux this runs on). */
const TICKS_PER_SECOND = 100;

/** User + system CPU of `pid` so far, in µs; null when it cannot be read. */
export function processCpuMicros(pid: number): number | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command name (field 2) is in parentheses and may hold spaces: fields are counted after its closing one.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) return null;
  return ((utime + stime) * 1_000_000) / TICKS_PER_SECOND;
}

/** A named set of processes whose CPU a phase accounts for; `self` is this (the load generator's) process. */
export type CpuSubjects = Record<string, number | 'self'>;

function read(subjects: CpuSubjects): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  for (const [name, pid] of Object.entries(subjects)) {
    if (pid === 'self') {
      const usage = process.cpuUsage();
      out[name] = usage.user + usage.system;
    } else out[name] = processCpuMicros(pid);
  }
  return out;
}

/**
 * Starts accounting: the returned function, called after `ops` operations, gives each subject's CPU per operation in
 * µs (rounded to 0.1), or null when any reading failed.
 */
export function startCpuAccount(subjects: CpuSubjects): (ops: number) => Record<string, number> | null {
  const before = read(subjects);
  return (ops) => {
    const after = read(subjects);
    const perOp: Record<string, number> = {};
    for (const name of Object.keys(subjects)) {
      const a = after[name];
      const b = before[name];
      if (a === null || a === undefined || b === null || b === undefined || ops <= 0) return null;
      perOp[name] = Math.round(((a - b) / ops) * 10) / 10;
    }
    return perOp;
  };
}

/** A figure note's CPU split of the reported round, e.g. "; CPU µs per answer: server 61 / 52, redis 38 / 22, …". */
export function cpuNote(value: Record<string, number> | null, baseline: Record<string, number> | null): string {
  if (value === null || baseline === null) return '';
  const parts = Object.keys(value).map((name) => `${name} ${value[name]} / ${baseline[name] ?? '?'}`);
  return `; CPU µs per call, askgate / baseline: ${parts.join(', ')}`;
}

/** redis-server's process id (from INFO), for CPU accounting; 0 when INFO does not say. */
export async function serverPid(redis: Redis): Promise<number> {
  const pid = /process_id:(\d+)/.exec(await redis.info('server'));
  return pid === null ? 0 : Number(pid[1]);
}
