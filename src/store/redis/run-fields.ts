import type { AskResult, RunSpec } from '../../core/types.js';
import type { ChatThread, Checkpoint } from '../../runs/checkpoints.js';
import type { RunAsk, RunStatus, RunView } from '../../runs/run-store.js';

/**
 * Reading a run hash (its fields: run-store.ts) as the run lifecycle's types. The fields come flat from a script
 * (run-read, or the resolve script for a run it settled ready) with pieced values joined.
 */

const STATUS_OF_LETTER: Record<string, RunAsk['status']> = { a: 'answered', e: 'expired', c: 'cancelled' };

/** The fields of a flat `[field, value, ...]` reply, in a prototype-less object. */
export function fieldsOf(flat: readonly string[]): Record<string, string> {
  // No prototype (dictionary mode): a run's ask fields (`a:<interaction id>`) are new names every park, and a plain
  // `{}` would grow V8's hidden-class transition tree by one entry each (each insert copies it) until a full GC.
  const fields: Record<string, string> = Object.create(null);
  for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i] as string] = flat[i + 1] as string;
  return fields;
}

/** How `st` marks a checkpoint kept elsewhere: `@` and its reference (a JSON text never starts with `@`). */
export const CHECKPOINT_REF_MARK = '@';

/** The reference of a checkpoint kept elsewhere, from a run hash's fields; null when the hash holds the state. */
function checkpointRefOf(h: Record<string, string>): string | null {
  const st = h['st'];
  return st?.startsWith(CHECKPOINT_REF_MARK) ? st.slice(CHECKPOINT_REF_MARK.length) : null;
}

/** The checkpoint part of a run hash; null when it holds none (never parked, or only bound to a thread). */
export function checkpointOf(h: Record<string, string>): Checkpoint | null {
  const rs = h['rs'];
  if (rs === undefined) return null;
  return {
    owner: h['o'] ?? '',
    kind: h['k'] === 'agent' ? 'agent' : 'tool',
    parentRunId: h['p'] ? h['p'] : null,
    resume: rs.startsWith('=') ? { handler: rs.slice(1) } : (JSON.parse(rs) as RunSpec['resume']),
    state: h['st'] && checkpointRefOf(h) === null ? (JSON.parse(h['st']) as unknown) : null,
    thread: h['th'] ? (JSON.parse(h['th']) as ChatThread) : null,
  };
}

/** A run as `get` reads it; null when the hash holds no status (no such run). */
export function runView(runId: string, h: Record<string, string>): RunView | null {
  if (h['s'] === undefined) return null;
  const asks: RunAsk[] = [];
  for (const [field, value] of Object.entries(h)) {
    if (!field.startsWith('a:')) continue;
    const letter = value.slice(0, 1);
    asks.push({
      interactionId: field.slice(2),
      status: value === '' ? 'pending' : (STATUS_OF_LETTER[letter] ?? 'cancelled'),
      result: value.length > 1 ? (JSON.parse(value.slice(1)) as AskResult) : null,
    });
  }
  const checkpoint = checkpointOf(h) ?? {
    owner: h['o'] ?? '',
    kind: 'tool' as const,
    parentRunId: null,
    resume: {} as RunSpec['resume'],
    state: null,
    thread: null,
  };
  return {
    runId,
    status: h['s'] as RunStatus,
    generation: Number(h['g']),
    ...checkpoint,
    outstanding: Number(h['n'] ?? 0),
    asks,
    killedBy: h['x'] ? h['x'] : null,
    attempts: Number(h['at'] ?? 0),
    parkedAt: h['ca'] ? new Date(Number(h['ca'])).toISOString() : null,
    completedAt: h['ra'] ? new Date(Number(h['ra'])).toISOString() : null,
    checkpointRef: checkpointRefOf(h),
  };
}

/**
 * The resume target as `rs` holds it (park-run's ARGV[4]): a handler alone as `=` + its name, 13 bytes shorter than
 * its JSON; any other target as its JSON, which starts with `{`.
 */
export function resumeArg(resume: RunSpec['resume']): string {
  const keys = Object.keys(resume);
  if (keys.length === 1 && 'handler' in resume && typeof resume.handler === 'string' && resume.handler !== '') {
    return `=${resume.handler}`;
  }
  return JSON.stringify(resume);
}
