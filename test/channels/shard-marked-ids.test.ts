import { describe, expect, it } from 'vitest';
import { decodeControlId, encodeControlId } from '../../channels/discord/webhook.js';
import { callbackData } from '../../channels/telegram/render.js';
import { replyId } from '../../channels/whatsapp/render.js';
import { decodeActionCode } from '../../src/core/action-code.js';
import { interactionIdInShard } from '../../src/core/shard-ids.js';

/**
 * An interaction id of shard k ≥ 1 is `<16 chars>.<k>` (src/core/shard-ids.ts): every channel that carries an id in
 * a button reads it back whole, within the platform's limits.
 */
describe('ids of a shard in channel controls', () => {
  const id = interactionIdInShard(63);

  it('round-trips through Telegram callback data (≤ 64 bytes)', () => {
    const data = callbackData(id, { kind: 'choice', index: 12 });
    expect(Buffer.byteLength(data)).toBeLessThanOrEqual(64);
    expect(decodeActionCode(data)).toEqual({ interactionId: id, pick: { kind: 'choice', index: 12 } });
    expect(decodeActionCode(callbackData(id, { kind: 'confirm', value: true }))?.interactionId).toBe(id);
  });

  it('round-trips through a WhatsApp reply id', () => {
    expect(decodeActionCode(replyId(id, { kind: 'confirm', value: false }))).toEqual({
      interactionId: id,
      pick: { kind: 'confirm', value: false },
    });
  });

  it('round-trips through a Discord custom id', () => {
    expect(decodeControlId(encodeControlId({ action: 'choice', interactionId: id, n: 3 }))).toEqual({
      action: 'choice',
      interactionId: id,
      n: 3,
    });
  });
});
