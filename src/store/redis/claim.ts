import type { Vote } from '../../core/types.js';
import { trailEntry } from '../audit-trail.js';
import type { Keys } from '../keys.js';
import { STATUS_CODES, decodeRecord } from '../record-codec.js';
import type { AnswerClaimOutcome, Resolution, SettledRun, VoteOutcome } from '../store.js';
import type { RedisConnections } from './connections.js';
import type { ScriptClient } from './scripts/index.js';

/** What a claim needs of its store. */
export interface ClaimDeps {
  client: ScriptClient;
  keys: Keys;
  connections: RedisConnections;
  idleTtlMs: number;
  runRetentionMs: number;
  /** The store's wrapper turning Redis failures into `store_unavailable`. */
  run<T>(call: () => Promise<T>): Promise<T>;
}

export interface ClaimArgs {
  id: string;
  resolution: Resolution;
  check: string;
  choice: string;
  vote: Vote | undefined;
}

/**
 * One claim through the resolve script (an answer, a vote, a resolve by expiry or cancel): `check` and `choice` are
 * its answer check (ARGV[9], ARGV[10]), '' for a plain resolve; `vote` a quorum vote (ARGV[11..14]). The reply's
 * code becomes the claim's outcome, with the run it settled; with ASKGATE_REDIS_WAIT_REPLICAS a won claim returns
 * only once replicas hold it.
 */
export async function claimInteraction(deps: ClaimDeps, claim: ClaimArgs): Promise<AnswerClaimOutcome | VoteOutcome> {
  const { id, resolution, check, choice, vote } = claim;
  const keys = deps.keys;
  const [code, envelope, schema, verdict, runId, generation, runFields] = await deps.run(() =>
    deps.client.askgateResolve(
      keys.interaction(id),
      keys.pending,
      keys.deadlines,
      id,
      STATUS_CODES[resolution.status],
      resolution.result === null ? '' : JSON.stringify(resolution.result),
      JSON.stringify(resolution.resolvedAt),
      deps.idleTtlMs,
      Date.now(),
      keys.prefix,
      deps.runRetentionMs,
      check,
      choice,
      // A vote's four arguments only when there is a vote: every argument is bytes written and parsed per claim.
      ...(vote === undefined
        ? []
        : [
            JSON.stringify(vote),
            vote.by,
            vote.answer ? '1' : '0',
            trailEntry(
              { type: 'vote', surface: vote.surface, by: vote.by, detail: { answer: vote.answer } },
              Date.parse(vote.at),
            ),
          ]),
    ),
  );
  if (code === -1 || typeof envelope !== 'string') return { kind: 'not_found' };
  const record = decodeRecord(id, envelope, schema ?? null);
  if (code === -2) return { kind: 'invalid', record };
  if (code === -3) return { kind: 'unchecked', record };
  if (code === -4) return { kind: 'already_voted', record };
  if (code === -5) return { kind: 'voted', record };
  if (code !== 1) return { kind: 'not_pending', record };
  // With ASKGATE_REDIS_WAIT_REPLICAS, the claim is acknowledged only once replicas hold it (a failover keeps it).
  if (deps.connections.waitsForReplicas) await deps.run(() => deps.connections.replicated(keys.interaction(id)));
  if ((verdict === 'ready' || verdict === 'kill') && typeof runId === 'string' && runId !== '') {
    const run: SettledRun = { runId, generation: Number(generation), verdict };
    if (verdict === 'ready' && Array.isArray(runFields) && runFields.length > 0) {
      // No prototype (dictionary mode): the ask fields' names are new every park (as in RedisRunStore.get).
      const fields: Record<string, string> = Object.create(null);
      for (let i = 0; i + 1 < runFields.length; i += 2) fields[runFields[i] as string] = runFields[i + 1] as string;
      run.fields = fields;
    }
    return { kind: 'resolved', record, run };
  }
  return { kind: 'resolved', record };
}
