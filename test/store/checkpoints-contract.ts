import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AskgateError } from '../../src/core/errors.js';
import type { ChatThread, Checkpoint, Checkpoints } from '../../src/runs/checkpoints.js';

/** One implementation under test, fresh for each case. */
export interface CheckpointsHandle {
  checkpoints: Checkpoints;
  cleanup(): Promise<void>;
}

export type MakeCheckpoints = () => Promise<CheckpointsHandle>;

// Longer than 64 bytes, with multi-byte characters across any 64-byte boundary: a store that splits values (the
// Redis run hash keeps them in 64-byte pieces) must give them back byte-exactly.
const LONG_STATE = { step: 3, note: 'Grüße, 設計 ✓ 🚀 '.repeat(12), nested: { list: [1, 'two', null, true] } };
const LONG_URL = `https://hooks.example.com/askgate/resume/${'a1b2c3d4'.repeat(12)}?tenant=eu-west-1`;

const THREAD: ChatThread = { channel: 'telegram', recipient: '-1001234567890', replyToMessageId: '812', route: 'desk' };
const LONG_THREAD: ChatThread = {
  channel: 'slack',
  recipient: 'C0123456789',
  replyToMessageId: '1712345678.000100',
  route: `support-${'r'.repeat(80)}`,
};

const simple: Checkpoint = {
  owner: 'deploy-bot',
  kind: 'tool',
  parentRunId: null,
  resume: { handler: 'deploy' },
  state: null,
  thread: null,
};

const rich: Checkpoint = {
  owner: `approvals-agent-of-the-payments-platform-${'ü'.repeat(20)}`,
  kind: 'agent',
  parentRunId: `parent-${'p'.repeat(90)}`,
  resume: { webhook: LONG_URL },
  state: LONG_STATE,
  thread: LONG_THREAD,
};

/**
 * The Checkpoints contract (src/runs/checkpoints.ts): what every implementation must do alike. Retention is each
 * implementation's own to show (a fake clock in memory, the key's expiry in Redis): checkpoints-contract.test.ts.
 */
export function checkpointsContract(name: string, make: MakeCheckpoints): void {
  describe(`${name}: checkpoints contract`, () => {
    let handle: CheckpointsHandle;
    let checkpoints: Checkpoints;
    let n = 0;
    /** A run id no other case of this run of the suite uses. */
    const runId = (what: string): string => `cp-${what}-${process.pid}-${++n}`;

    beforeEach(async () => {
      handle = await make();
      checkpoints = handle.checkpoints;
    });
    afterEach(async () => {
      await handle.cleanup();
    });

    it('loads nothing for a run never saved', async () => {
      expect(await checkpoints.load(runId('none'))).toBeNull();
    });

    it('gives back what was saved, field for field', async () => {
      const a = runId('simple');
      const b = runId('rich');
      await checkpoints.save(a, simple);
      await checkpoints.save(b, rich);
      expect(await checkpoints.load(a)).toEqual({
        owner: 'deploy-bot',
        kind: 'tool',
        parentRunId: null,
        resume: { handler: 'deploy' },
        state: null,
        thread: null,
      });
      expect(await checkpoints.load(b)).toEqual({
        owner: `approvals-agent-of-the-payments-platform-${'ü'.repeat(20)}`,
        kind: 'agent',
        parentRunId: `parent-${'p'.repeat(90)}`,
        resume: { webhook: LONG_URL },
        state: { step: 3, note: 'Grüße, 設計 ✓ 🚀 '.repeat(12), nested: { list: [1, 'two', null, true] } },
        thread: {
          channel: 'slack',
          recipient: 'C0123456789',
          replyToMessageId: '1712345678.000100',
          route: `support-${'r'.repeat(80)}`,
        },
      });
    });

    it('keeps state of every JSON kind as it was handed in', async () => {
      for (const state of [0, false, '', 'text', [], [1, [2]], { a: { b: null } }]) {
        const id = runId('state');
        await checkpoints.save(id, { ...simple, state });
        expect((await checkpoints.load(id))?.state).toEqual(state);
      }
    });

    it('replaces the earlier park on a second save: no field of the first is left', async () => {
      const id = runId('replace');
      await checkpoints.save(id, { ...rich, owner: 'deploy-bot', thread: null });
      await checkpoints.save(id, simple);
      expect(await checkpoints.load(id)).toEqual({
        owner: 'deploy-bot',
        kind: 'tool',
        parentRunId: null,
        resume: { handler: 'deploy' },
        state: null,
        thread: null,
      });
    });

    it('a bound thread makes no checkpoint, and a save with no thread keeps it', async () => {
      const id = runId('bound');
      expect(await checkpoints.bindThread(id, 'deploy-bot', THREAD)).toBe(true);
      expect(await checkpoints.load(id)).toBeNull();
      await checkpoints.save(id, simple);
      expect(await checkpoints.load(id)).toEqual({
        owner: 'deploy-bot',
        kind: 'tool',
        parentRunId: null,
        resume: { handler: 'deploy' },
        state: null,
        thread: { channel: 'telegram', recipient: '-1001234567890', replyToMessageId: '812', route: 'desk' },
      });
    });

    it('a save with a thread replaces the bound one; a second bind by the owner replaces it again', async () => {
      const id = runId('rebind');
      await checkpoints.bindThread(id, 'deploy-bot', THREAD);
      await checkpoints.save(id, { ...simple, thread: LONG_THREAD });
      expect((await checkpoints.load(id))?.thread).toEqual(LONG_THREAD);
      expect(await checkpoints.bindThread(id, 'deploy-bot', { ...THREAD, replyToMessageId: null })).toBe(true);
      expect((await checkpoints.load(id))?.thread).toEqual({
        channel: 'telegram',
        recipient: '-1001234567890',
        replyToMessageId: null,
        route: 'desk',
      });
    });

    it('refuses another identity: a bind answers false, a save throws conflict, and nothing changes', async () => {
      const id = runId('owned');
      expect(await checkpoints.bindThread(id, 'deploy-bot', THREAD)).toBe(true);
      expect(await checkpoints.bindThread(id, 'someone-else', LONG_THREAD)).toBe(false);
      const refused = await checkpoints.save(id, { ...simple, owner: 'someone-else' }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(AskgateError);
      expect(refused).toMatchObject({ code: 'conflict', field: 'run.run_id' });
      expect(await checkpoints.load(id)).toBeNull();

      await checkpoints.save(id, simple);
      expect(await checkpoints.bindThread(id, 'someone-else', LONG_THREAD)).toBe(false);
      await expect(checkpoints.save(id, { ...rich, owner: 'someone-else' })).rejects.toMatchObject({
        code: 'conflict',
      });
      expect(await checkpoints.load(id)).toEqual({ ...simple, thread: THREAD });
    });

    it('hands out copies: changing a loaded checkpoint changes nothing kept', async () => {
      const id = runId('copy');
      const saved = { ...rich, state: { items: ['a'] } };
      await checkpoints.save(id, saved);
      saved.state.items.push('changed after save');
      const loaded = await checkpoints.load(id);
      (loaded?.state as { items: string[] }).items.push('changed after load');
      expect((await checkpoints.load(id))?.state).toEqual({ items: ['a'] });
    });
  });
}
