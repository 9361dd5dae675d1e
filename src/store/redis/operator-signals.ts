import { EventEmitter } from 'node:events';
import {
  isOperatorSignalType,
  type OperatorSignal,
  type OperatorSignals,
  type OperatorSignalTotal,
} from '../../core/operator-signals.js';
import { redisCall } from './checkpoints.js';
import type { RedisConnections } from './connections.js';

/**
 * Operator signals on the deployment's Redis: a raise counts into one hash (`ops:signals`) and publishes the signal
 * on `ops:signal-events`, so a signal raised on a worker shows on every serving process's `/metrics` and stream.
 * The channel is subscribed on the process's subscriber connection at the first listener, and stays subscribed.
 */
export class RedisOperatorSignals implements OperatorSignals {
  private readonly emitter = new EventEmitter().setMaxListeners(0);
  private subscribed: Promise<void> | null = null;
  private handling = false;

  constructor(private readonly connections: RedisConnections) {}

  async raise(signal: OperatorSignal): Promise<void> {
    const keys = this.connections.keys;
    await redisCall(async () => {
      await this.connections
        .command()
        .multi()
        .hincrby(keys.operatorSignals, `${signal.type}|${signal.provider}`, 1)
        .publish(keys.operatorSignalEvents, JSON.stringify(signal))
        .exec();
    });
  }

  listen(listener: (signal: OperatorSignal) => void): () => void {
    this.emitter.on('signal', listener);
    void this.ready().catch(() => undefined);
    return () => this.emitter.off('signal', listener);
  }

  ready(): Promise<void> {
    const channel = this.connections.keys.operatorSignalEvents;
    const subscriber = this.connections.subscriber();
    if (!this.handling) {
      // One handler, whatever the number of subscribe attempts (else each retry would hear every signal again).
      this.handling = true;
      subscriber.on('message', (from: string, raw: string) => {
        if (from !== channel) return;
        const signal = parseSignal(raw);
        if (signal !== null) this.emitter.emit('signal', signal);
      });
    }
    this.subscribed ??= subscriber.subscribe(channel).then(
      () => undefined,
      (err: unknown) => {
        this.subscribed = null;
        throw err;
      },
    );
    return this.subscribed;
  }

  async totals(): Promise<OperatorSignalTotal[]> {
    const all = await redisCall(() => this.connections.command().hgetall(this.connections.keys.operatorSignals));
    const totals: OperatorSignalTotal[] = [];
    for (const [field, count] of Object.entries(all)) {
      const [type, provider] = field.split('|');
      if (isOperatorSignalType(type) && provider !== undefined) totals.push({ type, provider, count: Number(count) });
    }
    return totals;
  }

  close(): void {
    this.emitter.removeAllListeners();
  }
}

function parseSignal(raw: string): OperatorSignal | null {
  try {
    const parsed = JSON.parse(raw) as Partial<OperatorSignal>;
    if (!isOperatorSignalType(parsed.type) || typeof parsed.provider !== 'string') return null;
    if (parsed.data === null || typeof parsed.data !== 'object') return null;
    return { type: parsed.type, provider: parsed.provider, data: parsed.data };
  } catch {
    return null; // Not a message of ours.
  }
}
