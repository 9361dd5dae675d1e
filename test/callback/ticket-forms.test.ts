import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newTicketSecret } from '../../src/core/ids.js';
import type { TestGateway } from '../helpers/gateway.js';
import { askFor, postJson, startCallbackGateway } from './helpers.js';

/**
 * Tickets at the door: a ticket names its question (`<secret>.<id>`, only the secret's hash stored in the record,
 * no lookup key). Every miss is the door's one 404.
 */

let gw: TestGateway;
beforeAll(async () => {
  gw = await startCallbackGateway();
});
afterAll(async () => gw?.close());

const NOT_FOUND = {
  error: 'not_found',
  message: 'this callback ticket does not resolve: it is unknown, expired or pruned.',
};

describe('callback tickets', () => {
  it('a new ticket is <43-character secret>.<interaction id> and answers its question', async () => {
    const { id, ticket, path } = await askFor(gw, { question: 'New form?', answer_format: 'external' });
    expect(ticket).toBe(`${ticket.slice(0, 43)}.${id}`);
    expect(ticket.slice(0, 43)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const stored = await gw.gateway.store.get(id);
    // The record keeps only the secret's hash, never the secret or the ticket.
    expect(stored?.ticket_hash).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(JSON.stringify(stored)).not.toContain(ticket.slice(0, 43));
    const res = await postJson(gw, path, { ok: true });
    expect(res.status).toBe(200);
    expect((await gw.gateway.store.get(id))?.status).toBe('answered');
  });

  it('a wrong secret, another question id, or a secret alone is the same 404 and changes nothing', async () => {
    const a = await askFor(gw, { question: 'A?', answer_format: 'external' });
    const b = await askFor(gw, { question: 'B?', answer_format: 'external' });
    const secretA = a.ticket.slice(0, 43);
    const tries = [
      `${newTicketSecret()}.${a.id}`,
      `${secretA}.${b.id}`,
      secretA,
      `${secretA}.${a.id}x`,
      `${secretA}.${a.id}.9`,
    ];
    for (const ticket of tries) {
      const res = await postJson(gw, `/api/interactions/callback/${ticket}`, { ok: true });
      expect(res.status).toBe(404);
      expect(res.json()).toEqual(NOT_FOUND);
    }
    expect((await gw.gateway.store.get(a.id))?.status).toBe('pending');
    expect((await gw.gateway.store.get(b.id))?.status).toBe('pending');
  });
});
