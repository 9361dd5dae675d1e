import { describe, expect, it, vi } from 'vitest';
import type { Identity } from '../../src/core/types.js';
import type { Gateway } from '../../src/gateway.js';
import { ParkService } from '../../src/runs/park-service.js';
import type { JobBus } from '../../src/runs/job-bus.js';
import { runView } from '../../src/store/redis/run-fields.js';
import type { RedisRunStore } from '../../src/store/redis/run-store.js';
import type { SettledRun } from '../../src/store/store.js';
import { parkOnOneAsk, useParkWorld } from './helpers.js';

/**
 * The resolve script returns the run it settles ready (src/store/redis/scripts/resolve-3.lua, run_fields): the hash
 * as that step left it, pieced values joined byte-exactly, so the resume is enqueued without reading the run again.
 */

const PREFIX = '{sf}:';
const TOKEN = 'settled-fields-token-0123456789abcdef';
// Longer than 64 bytes: stored in pieces.
const LONG_IDENTITY = 'deployment-approvals-agent-of-the-payments-platform-team-eu-west-1-prod';
// Multi-byte characters placed so that 64-byte pieces split some of them.
const LONG_STATE = { step: 3, note: 'Grüße, 設計 ✓ 🚀 '.repeat(12) };

let gateway: Gateway;
let identity: Identity;
let runs: RedisRunStore;

useParkWorld({ prefix: PREFIX, token: TOKEN, identity: LONG_IDENTITY, retentionMinutes: 120 }, (world) => {
  ({ gateway, identity, runs } = world);
});

const park = (runId: string) =>
  parkOnOneAsk(gateway, identity, runId, { resume: { handler: 'deploy' }, state: LONG_STATE });

const answer = (answeredBy: string) => ({
  status: 'answered' as const,
  result: {
    answer: true,
    reply_to: null,
    params: null,
    answered_by: answeredBy,
    answered_at: new Date().toISOString(),
    surface: 'inbox' as const,
  },
  resolvedAt: new Date().toISOString(),
});

describe('a resolve that settles a run ready returns the run', () => {
  it('returns the hash as the step left it, pieces joined, reading as RunStore.get does', async () => {
    const id = await park('ready-1');
    // A long result, so the slot is pieced too.
    const outcome = await gateway.store.resolve(id, answer(`someone-${'é'.repeat(70)}`));
    expect(outcome.kind).toBe('resolved');
    const run = outcome.kind === 'resolved' ? (outcome.run as SettledRun) : null;
    expect(run?.verdict).toBe('ready');
    expect(run?.fields).toBeDefined();
    expect(Object.keys(run?.fields ?? {}).some((f) => /\.[0-9]+$/.test(f))).toBe(false);
    const fromScript = runView('ready-1', run?.fields ?? {});
    expect(fromScript).toEqual(await runs.get('ready-1'));
    expect(fromScript?.status).toBe('ready');
    expect(fromScript?.owner).toBe(LONG_IDENTITY);
    expect(fromScript?.state).toEqual(LONG_STATE);
    expect(fromScript?.asks[0]?.result?.answered_by).toBe(`someone-${'é'.repeat(70)}`);
  });

  it('returns no run fields for a kill', async () => {
    const id = await park('killed-1');
    const outcome = await gateway.store.resolve(id, {
      status: 'cancelled',
      result: null,
      resolvedAt: new Date().toISOString(),
    });
    const run = outcome.kind === 'resolved' ? outcome.run : undefined;
    expect(run?.verdict).toBe('kill');
    expect(run?.fields).toBeUndefined();
  });

  it('enqueues the handler continuation from the returned fields without reading the run', async () => {
    const id = await park('ready-2');
    const outcome = await gateway.store.resolve(id, answer('bench'));
    const settled = outcome.kind === 'resolved' ? (outcome.run as SettledRun) : null;
    const enqueueHandler = vi.fn(async () => undefined);
    const enqueueResume = vi.fn(async () => undefined);
    const get = vi.spyOn(runs, 'get');
    const logger = { warn: vi.fn() };
    const parks = new ParkService({
      runs,
      checkpoints: runs.checkpoints,
      jobs: { enqueueHandler, enqueueResume } as unknown as JobBus,
      logger: logger as never,
    });
    parks.settled(settled as SettledRun);
    await vi.waitFor(() => expect(enqueueHandler).toHaveBeenCalledTimes(1));
    expect(get).not.toHaveBeenCalled();
    expect(enqueueResume).not.toHaveBeenCalled();
    const [handler, jobId, payload] = enqueueHandler.mock.calls[0] as unknown as [
      string,
      string,
      Record<string, unknown>,
    ];
    expect(handler).toBe('deploy');
    expect(jobId).toBe(`resume-${Buffer.from('ready-2').toString('base64url')}-1`);
    expect(payload).toMatchObject({
      type: 'run.resumed',
      run_id: 'ready-2',
      identity: LONG_IDENTITY,
      state: LONG_STATE,
      interaction_id: id,
      resume_id: jobId,
    });
    expect(logger.warn).not.toHaveBeenCalled();
    get.mockRestore();
  });
});
