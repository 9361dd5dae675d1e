import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** The gateway's Prometheus metrics, in one registry per gateway (so tests can run several gateways in one process). */
export class Metrics {
  readonly registry = new Registry();
  readonly asks: Counter<'format' | 'channel' | 'mode'>;
  readonly answers: Counter<'format' | 'surface'>;
  readonly expiries: Counter<'format'>;
  readonly cancels: Counter<'format'>;
  readonly timeToAnswer: Histogram<'format' | 'surface'>;

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
  }
}
