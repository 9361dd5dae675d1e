import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** One operator signal's deployment-wide count (core/operator-signals.ts), as `/metrics` reads it at each scrape. */
export interface SignalCount {
  type: string;
  provider: string;
  count: number;
}

/** The counter each operator signal is exposed as. */
export const SIGNAL_METRICS: Readonly<Record<string, { name: string; help: string }>> = {
  'confirmation.reconcile_unserved': {
    name: 'askgate_confirmation_reconcile_unserved_total',
    help: 'Reconcile runs whose every selected confirmation came back expired: the callback route may be unserved.',
  },
  'confirmation.bridge_failed': {
    name: 'askgate_confirmation_bridge_failed_total',
    help: 'Confirmation bridge jobs that ended failed (kept for an operator: GET /api/confirmations/failed).',
  },
};

/** The gateway's Prometheus metrics, in one registry per gateway (so tests can run several gateways in one process). */
export class Metrics {
  readonly registry = new Registry();
  readonly asks: Counter<'format' | 'channel' | 'mode'>;
  readonly answers: Counter<'format' | 'surface'>;
  readonly expiries: Counter<'format'>;
  readonly cancels: Counter<'format'>;
  readonly timeToAnswer: Histogram<'format' | 'surface'>;
  /** PostgreSQL checkpoints (ASKGATE_CHECKPOINT_URL): how long each read and write took, and what sweeps removed. */
  readonly checkpointSeconds: Histogram<'op'>;
  readonly checkpointsSwept: Counter;

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'askgate_process_' });
    this.asks = new Counter({
      name: 'askgate_asks_total',
      help: 'Questions asked.',
      labelNames: ['format', 'channel', 'mode'],
      registers: [this.registry],
    });
    this.answers = new Counter({
      name: 'askgate_answers_total',
      help: 'Questions answered (the winning answer only).',
      labelNames: ['format', 'surface'],
      registers: [this.registry],
    });
    this.expiries = new Counter({
      name: 'askgate_expiries_total',
      help: 'Questions that reached their deadline unanswered.',
      labelNames: ['format'],
      registers: [this.registry],
    });
    this.cancels = new Counter({
      name: 'askgate_cancels_total',
      help: 'Questions cancelled by their asker.',
      labelNames: ['format'],
      registers: [this.registry],
    });
    this.timeToAnswer = new Histogram({
      name: 'askgate_time_to_answer_seconds',
      help: 'From the ask to the winning answer.',
      labelNames: ['format', 'surface'],
      buckets: [1, 5, 15, 30, 60, 300, 900, 3600, 4 * 3600, 24 * 3600],
      registers: [this.registry],
    });
    this.checkpointSeconds = new Histogram({
      name: 'askgate_checkpoint_seconds',
      help: 'PostgreSQL checkpoint statements, by op (read, write), failed ones included.',
      labelNames: ['op'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [this.registry],
    });
    this.checkpointsSwept = new Counter({
      name: 'askgate_checkpoints_swept_total',
      help: 'PostgreSQL checkpoints deleted by the retention sweep (past LLM_PROVIDER_CHECKPOINT_RETENTION_WAITING_MINUTES).',
      registers: [this.registry],
    });
  }

  /**
   * Exposes the operator signals' counters, read from `read` at each scrape: the counts are the deployment's (a
   * signal raised on a worker shows on every serving process), so they are set, not incremented here. A scrape
   * while the shared store is unreachable shows the last counts read.
   */
  exposeSignals(read: () => Promise<SignalCount[]>): void {
    for (const [type, { name, help }] of Object.entries(SIGNAL_METRICS)) {
      new Counter({
        name,
        help,
        labelNames: ['provider'],
        registers: [this.registry],
        async collect() {
          let counts: SignalCount[];
          try {
            counts = await read();
          } catch {
            return;
          }
          this.reset();
          for (const count of counts) if (count.type === type) this.inc({ provider: count.provider }, count.count);
        },
      });
    }
  }
}
