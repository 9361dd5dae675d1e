import type { AuditEvent } from '../../core/audit.js';
import { expandTrail } from '../audit-trail.js';
import type { Keys } from '../keys.js';
import { decodeRecord, trailParts } from '../record-codec.js';
import type { ScriptClient } from './scripts/index.js';

/** How many read-and-seal rounds a reader takes before it returns what it computed without sealing it. */
const SEAL_ROUNDS = 3;

/**
 * The audit trail of `id`, every event with its hash, sealing what is not sealed yet (scripts/audit-seal-1.lua, a
 * compare-and-set on the number of sealed hashes). A reader that loses the compare-and-set to another reader reads
 * again and finds the other's hashes sealed; both computed the same hashes from the same events. `run` is the
 * store's wrapper of Redis calls; a damaged trail throws as it is (a corrupt record, not an unreachable store).
 */
export async function readSealedEvents(
  client: ScriptClient,
  keys: Keys,
  id: string,
  run: <T>(call: () => Promise<T>) => Promise<T>,
): Promise<AuditEvent[] | null> {
  const key = keys.interaction(id);
  for (let round = 1; ; round++) {
    const reply = await run(() => client.askgateGet(key, keys.schemaPrefix));
    if (reply === null) return null;
    const { trail, seal } = trailParts(reply[0]);
    const expanded = expandTrail(decodeRecord(id, reply[0], reply[1]), trail, seal);
    if (expanded.unsealedHashes === '' || round === SEAL_ROUNDS) return expanded.items;
    const code = await run(() => client.askgateAuditSeal(key, expanded.sealed, expanded.unsealedHashes));
    if (code !== 0) return expanded.items;
  }
}
