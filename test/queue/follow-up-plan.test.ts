import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { followUpFieldSchemas } from '../../src/core/ask-body-schema.js';
import { type AskContext, parseAskRequest } from '../../src/core/ask-request.js';
import { buildRecord } from '../../src/core/record-builder.js';
import type { StoredInteraction } from '../../src/core/types.js';
import { followUpJobId, planSteps } from '../../src/queue/follow-ups.js';
import { decodeRecord, encodeRecord } from '../../src/store/record-codec.js';

/**
 * The follow-up schedule as data: which steps a question gets and when (docs/reminders.md, "Timing"), the ids that
 * make a second schedule a no-op, the compact record that keeps the spec, and the published schema agreeing with the
 * parser.
 */

const NOW = Date.parse('2030-01-01T12:00:00.000Z');
const CTX: AskContext = {
  nowMs: NOW,
  defaultTimeoutSeconds: 300,
  retentionWaitingMinutes: 10080,
  idleTtlSeconds: 86400,
  channel: (name) => (['telegram', 'slack'].includes(name) ? { supportsFormDelivery: true } : undefined),
  registeredChannels: () => ['slack', 'telegram'],
};
const IDENTITY = { name: 'ops', scopes: new Set(['write'] as const), webhookSecret: null };

function record(body: Record<string, unknown>): StoredInteraction {
  const request = parseAskRequest(
    { question: 'Ship?', answer_format: 'confirm', channel: 'telegram', recipient: '1', ...body },
    CTX,
  );
  return buildRecord(request, IDENTITY, 'ticket', NOW, { interactionId: () => 'AbC123' });
}

describe('planSteps', () => {
  it('schedules each reminder at created_at + n × every and each escalation at created_at + after', () => {
    const steps = planSteps(
      record({
        timeout: 3600,
        remind: { every: 600, max: 3 },
        escalate: [{ after: 900, channel: 'slack', recipient: 'C1' }],
      }),
    );
    expect(steps.map((s) => [followUpJobId(s.data), s.dueMs - NOW])).toEqual([
      ['remind-AbC123-1', 600_000],
      ['remind-AbC123-2', 1_200_000],
      ['remind-AbC123-3', 1_800_000],
      ['escalate-AbC123-0', 900_000],
    ]);
  });

  it('leaves out reminders due at or after the deadline: max is a ceiling', () => {
    const steps = planSteps(record({ timeout: 1800, remind: { every: 600, max: 5 } }));
    expect(steps.map((s) => followUpJobId(s.data))).toEqual(['remind-AbC123-1', 'remind-AbC123-2']);
  });

  it('shrinks only the delays on the test clock; the steps stay those of the ask', () => {
    const r = record({ timeout: 1800, remind: { every: 600, max: 5 } });
    const fast = planSteps(r, 10);
    expect(fast.map((s) => followUpJobId(s.data))).toEqual(planSteps(r).map((s) => followUpJobId(s.data)));
    expect(fast.map((s) => s.dueMs - NOW)).toEqual([6_000, 12_000]);
  });

  it('plans nothing for a question without follow-ups', () => {
    expect(planSteps(record({ timeout: 60 }))).toEqual([]);
  });
});

describe('the stored spec', () => {
  it('round-trips remind and escalate through the compact record, and adds nothing to a plain one', () => {
    const r = record({ timeout: 3600, remind: { every: 60, max: 2 }, escalate: [{ after: 90, channel: 'slack' }] });
    const decoded = decodeRecord(r.id, encodeRecord(r).envelope, null);
    expect(decoded.remind).toEqual({ every: 60, max: 2 });
    expect(decoded.escalate).toEqual([{ after: 90, channel: 'slack', recipient: null }]);
    const plain = record({ timeout: 3600 });
    const plainEnvelope = encodeRecord(plain).envelope;
    expect(plainEnvelope).not.toMatch(/"rm"|"es"/);
    expect('remind' in decodeRecord(plain.id, plainEnvelope, null)).toBe(false);
    // The spec costs a few bytes, not a copy per step.
    expect(encodeRecord(r).envelope.length - plainEnvelope.length).toBeLessThan(40);
  });
});

describe('the published schema agrees with the parser', () => {
  const schemas = followUpFieldSchemas();
  const remindOk = new Ajv2020({ strict: false }).compile(schemas.remind);
  const escalateOk = new Ajv2020({ strict: false }).compile(schemas.escalate);
  const parses = (body: Record<string, unknown>): boolean => {
    try {
      parseAskRequest(
        { question: 'q', answer_format: 'confirm', channel: 'telegram', recipient: '1', timeout: 86400, ...body },
        CTX,
      );
      return true;
    } catch {
      return false;
    }
  };
  const reminds: unknown[] = [
    { every: 60, max: 1 },
    { every: 59, max: 1 },
    { every: 60.5, max: 1 },
    { every: 600, max: 10 },
    { every: 600, max: 11 },
    { every: 600, max: 0 },
    { every: 600 },
    { every: 600, max: 2, extra: 1 },
  ];
  const escalations: unknown[] = [
    [{ after: 60, channel: 'slack', recipient: 'C1' }],
    [{ after: 0, channel: 'slack' }],
    [],
    Array.from({ length: 6 }, (_, i) => ({ after: 60 * (i + 1), channel: 'slack', recipient: `C${i}` })),
    [{ after: 60, channel: 'slack', recipient: 'C1', x: 1 }],
    [{ channel: 'slack' }],
  ];
  for (const remind of reminds)
    it(`remind ${JSON.stringify(remind)}`, () => expect(remindOk(remind)).toBe(parses({ remind })));
  for (const escalate of escalations)
    it(`escalate ${JSON.stringify(escalate).slice(0, 60)}`, () =>
      expect(escalateOk(escalate)).toBe(parses({ escalate })));
});
