import { describe, expect, it } from 'vitest';
import { MessageEdits } from '../../src/core/surface-edits.js';

/** A controllable edit: records that it ran and finishes when released. */
function recorder() {
  const ran: string[] = [];
  const releases: Array<() => void> = [];
  const edit = (label: string) => () =>
    new Promise<void>((resolve) => {
      ran.push(label);
      releases.push(resolve);
    });
  const releaseNext = async (): Promise<void> => {
    releases.shift()?.();
    // Let the lane's loop pick up what waits.
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  return { ran, edit, releaseNext, pending: () => releases.length };
}

describe('MessageEdits: the edits of one question message', () => {
  it('coalesces a burst of counts behind the edit in flight: the last count wins', async () => {
    const r = recorder();
    const edits = new MessageEdits(() => undefined);
    edits.count('m', 1, r.edit('1'));
    edits.count('m', 2, r.edit('2'));
    edits.count('m', 3, r.edit('3'));
    edits.count('m', 4, r.edit('4'));
    expect(r.ran).toEqual(['1']);
    await r.releaseNext();
    expect(r.ran).toEqual(['1', '4']);
    await r.releaseNext();
    expect(r.pending()).toBe(0);
  });

  it('never shows a count lower than or equal to one already queued or shown', async () => {
    const r = recorder();
    const edits = new MessageEdits(() => undefined);
    edits.count('m', 3, r.edit('3'));
    edits.count('m', 2, r.edit('2'));
    edits.count('m', 3, r.edit('3 again'));
    await r.releaseNext();
    edits.count('m', 1, r.edit('1'));
    await r.releaseNext();
    expect(r.ran).toEqual(['3']);
  });

  it('the outcome replaces a waiting count, runs after the one in flight, and nothing is shown after it', async () => {
    const r = recorder();
    const edits = new MessageEdits(() => undefined);
    edits.count('m', 1, r.edit('1'));
    edits.count('m', 2, r.edit('2'));
    edits.outcome('m', r.edit('outcome'));
    edits.count('m', 5, r.edit('late count'));
    edits.outcome('m', r.edit('outcome again'));
    expect(r.ran).toEqual(['1']);
    await r.releaseNext();
    await r.releaseNext();
    expect(r.ran).toEqual(['1', 'outcome']);
  });

  it('keeps messages apart, and a failed edit is reported and does not stop the next', async () => {
    const errors: string[] = [];
    const edits = new MessageEdits((key) => errors.push(key));
    const ran: string[] = [];
    let fail!: (err: Error) => void;
    edits.count('a', 1, () => new Promise<void>((_, reject) => (fail = reject)));
    edits.count('a', 2, async () => void ran.push('a2'));
    edits.count('b', 1, async () => void ran.push('b1'));
    await Promise.resolve();
    expect(ran).toEqual(['b1']);
    fail(new Error('429'));
    for (let i = 0; i < 5; i++) await Promise.resolve();
    expect(errors).toEqual(['a']);
    expect(ran).toEqual(['b1', 'a2']);
  });
});
