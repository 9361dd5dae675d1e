/**
 * Operator signals: things an operator must hear of although no question changed — a reconcile run that found every
 * confirmation expired (the callback route may be unserved), a confirmation bridge job that ended failed. Each is
 * raised once, wherever it happened (a worker, the process serving doors), and is then both counted for every
 * process's `/metrics` and sent to the admin listeners of `GET /api/interactions/stream` of every process. The
 * implementations live in src/store (memory-operator-signals.ts, redis/operator-signals.ts), shared by every
 * process of a deployment on Redis.
 */

/** The signals, as their stream event names. */
export const OPERATOR_SIGNAL_TYPES = ['confirmation.reconcile_unserved', 'confirmation.bridge_failed'] as const;
export type OperatorSignalType = (typeof OPERATOR_SIGNAL_TYPES)[number];

export interface OperatorSignal {
  type: OperatorSignalType;
  /** The confirmation provider it concerns, e.g. `stripe_checkout` (the metric's label). */
  provider: string;
  /** The stream event's data: what an operator needs to act, never a secret or a callback URL. */
  data: Record<string, unknown>;
}

/** How many times one signal was raised for one provider, by the whole deployment. */
export interface OperatorSignalTotal {
  type: OperatorSignalType;
  provider: string;
  count: number;
}

export interface OperatorSignals {
  /** Counts the signal and tells every listener of every process. Rejects when the shared store cannot be reached. */
  raise(signal: OperatorSignal): Promise<void>;
  /** Every signal raised from now on, by any process; returns the unsubscribe function. */
  listen(listener: (signal: OperatorSignal) => void): () => void;
  /** Resolves once signals raised from now on reach this process's listeners. */
  ready(): Promise<void>;
  /** The deployment's totals so far (since the shared store was created; this process's life in memory). */
  totals(): Promise<OperatorSignalTotal[]>;
  close(): void;
}

export function isOperatorSignalType(value: unknown): value is OperatorSignalType {
  return (OPERATOR_SIGNAL_TYPES as readonly unknown[]).includes(value);
}
