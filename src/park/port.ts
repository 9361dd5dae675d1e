import type { AskRequest } from '../core/ask-request.js';
import type { Identity, InteractionRecord, StoredInteraction } from '../core/types.js';
import type { SettledRun } from '../store/store.js';

/** The response to one parked ask: the record, `suspended`, and the callback URL for the asker alone. */
export type ParkedAsk = InteractionRecord & { suspended: true };

/**
 * What the interaction core needs from parks. The core stays free of queues and runs: it hands async asks here,
 * reports runs its claims settled, and asks whether an identity may answer an ask to the caller.
 */
export interface ParkPort {
  /** Writes every ask and parks their run in one step (all validated before), then delivers channel asks. */
  park(requests: AskRequest[], identity: Identity): Promise<ParkedAsk[]>;
  /** A resolve settled a run: enqueue its one resume job. Never throws (the straggler sweep is the safety net). */
  settled(run: SettledRun): void;
  /** Throws `forbidden` unless `answeredBy` may answer `stored` (an ask to the caller: the parent run's identity). */
  mayAnswer(stored: StoredInteraction, answeredBy: string): Promise<void>;
}
