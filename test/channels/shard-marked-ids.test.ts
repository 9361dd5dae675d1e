import { describe, expect, it } from 'vitest';
import { decodeControlId, encodeControlId } from '../../channels/discord/webhook.js';
import { decodeAction as decodeTelegram, encodeAction as encodeTelegram } from '../../channels/telegram/render.js';
import { decodeAction as decodeWhatsApp, encodeAction as encodeWhatsApp } from '../../channels/whatsapp/render.js';
import { interactionIdInShard } from '../../src/core/shard-ids.js';

/**
 * An interaction id of shard k ≥ 1 is `<16 chars>.<k>` (src/core/shard-ids.ts): every channel that carries an id in
 * a button reads it back whole, within the platform's limits.
 */
describe('ids of a shard in channel controls', () => {
  const id = interactionIdInShard(63);

  it('round-trips through Telegram callback data (≤ 64 bytes)', () => {
    const data = encodeTelegram(id, { kind: 'select', index: 12 });
    expect(Buffer.byteLength(data)).toBeLessThanOrEqual(64);
    expect(decodeTelegram(data)).toEqual({ interactionId: id, action: { kind: 'select', index: 12 } });
    expect(decodeTelegram(encodeTelegram(id, { kind: 'confirm', value: true }))?.interactionId).toBe(id);
  });

  it('round-trips through a WhatsApp reply id', () => {
    expect(decodeWhatsApp(encodeWhatsApp(id, { kind: 'confirm', value: false }))).toEqual({
      interactionId: id,
      action: { kind: 'confirm', value: false },
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
