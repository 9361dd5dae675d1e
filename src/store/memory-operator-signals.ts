import { EventEmitter } from 'node:events';
import type { OperatorSignal, OperatorSignals, OperatorSignalTotal } from '../core/operator-signals.js';

/** Operator signals held in this process (the in-memory store: one process serves the doors and runs the workers). */
export class MemoryOperatorSignals implements OperatorSignals {
  private readonly emitter = new EventEmitter().setMaxListeners(0);
  private readonly counts = new Map<string, OperatorSignalTotal>();

  async raise(signal: OperatorSignal): Promise<void> {
    const key = `${signal.type}|${signal.provider}`;
    const total = this.counts.get(key) ?? { type: signal.type, provider: signal.provider, count: 0 };
    total.count += 1;
    this.counts.set(key, total);
    this.emitter.emit('signal', structuredClone(signal));
  }

  listen(listener: (signal: OperatorSignal) => void): () => void {
    this.emitter.on('signal', listener);
    return () => this.emitter.off('signal', listener);
  }

  async ready(): Promise<void> {}

  async totals(): Promise<OperatorSignalTotal[]> {
    return [...this.counts.values()].map((total) => ({ ...total }));
  }

  close(): void {
    this.emitter.removeAllListeners();
  }
}
