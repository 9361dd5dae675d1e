import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from '../observability/logger.js';
import { COMPLETIONS_GROUP, type CompletionJob, unsupportedVersion } from '../runs/job-protocol.js';
import type { RedisClient } from '../store/redis/connections.js';

export interface CompletionStreamOptions {
  /** The process's command connection: acknowledgements, deletes, group creation, reclaims. */
  command: RedisClient;
  /** A connection of its own for the blocking reads (RedisConnections.streamReader). */
  reader: RedisClient;
  /** The stream (Keys.completions). */
  stream: string;
  /** Records one report (src/runs/completion.ts); idempotent, and a throw leaves the entry to be read again. */
  record(report: CompletionJob): Promise<void>;
  logger: Logger;
  /** An entry read by a consumer that went silent this long is taken over by another (the workers' lock), ms. */
  lockMs: number;
  /** How long one blocking read waits before it looks again, ms. Default 5000. */
  blockMs?: number;
}

/** Entries read per call: one XREADGROUP takes every report that arrived while the last batch was recorded. */
const BATCH = 64;

type Entries = Array<[id: string, fields: string[]]>;

/**
 * The askgate worker's side of handler completions, version 2 of the job protocol (job-protocol.ts): the
 * continuation doors append one report per completed continuation to the completions stream, and every askgate worker process reads
 * it as one consumer of the group `askgate`, so each entry goes to one of them. With ASKGATE_SHARDS > 1 each shard
 * has its stream, and an askgate worker runs one CompletionStream per shard (src/wiring/runs.ts), each on a reader
 * connection of its own.
 *
 * Per entry, the report is recorded (`record`: src/runs/completion.ts, the chat reply first, then the run's
 * completion), then the entry is deleted and acknowledged. Recording is idempotent, which is what makes the delivery
 * guarantees below enough:
 *
 * - an entry whose recording fails (Redis blip) stays pending and is read again when reclaimed;
 * - an entry read by a process that died before acknowledging it is reclaimed by another after `lockMs`
 *   (XAUTOCLAIM, every `lockMs / 2`); a reclaim also clears entries deleted but not yet acknowledged;
 * - a report of an unknown version is logged, deleted and acknowledged: it can never be read here.
 */
export class CompletionStream {
  private running = true;
  private readonly consumer = `${hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`;
  private readonly loop: Promise<void>;
  private nextReclaim = 0;

  constructor(private readonly options: CompletionStreamOptions) {
    this.loop = this.run();
  }

  private async run(): Promise<void> {
    let grouped = false;
    while (this.running) {
      try {
        if (!grouped) grouped = await this.createGroup();
        if (Date.now() >= this.nextReclaim) await this.reclaim();
        const read = (await this.options.reader.xreadgroup(
          'GROUP',
          COMPLETIONS_GROUP,
          this.consumer,
          'COUNT',
          BATCH,
          'BLOCK',
          this.options.blockMs ?? 5000,
          'STREAMS',
          this.options.stream,
          '>',
        )) as Array<[string, Entries]> | null;
        if (read !== null) await this.record(read[0]?.[1] ?? []);
      } catch (error) {
        if (!this.running) return;
        const message = error instanceof Error ? error.message : String(error);
        // The stream or its group went away (a flushed Redis): make them again.
        if (message.includes('NOGROUP')) grouped = false;
        this.options.logger.warn({ err: message }, 'completions stream read failed; reading again in 1 s');
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  }

  /** The group, from the stream's start (reports written before any askgate worker ran are read too). */
  private async createGroup(): Promise<boolean> {
    try {
      await this.options.command.xgroup('CREATE', this.options.stream, COMPLETIONS_GROUP, '0', 'MKSTREAM');
    } catch (error) {
      if (!(error instanceof Error && error.message.includes('BUSYGROUP'))) throw error;
    }
    return true;
  }

  /** Takes over entries another consumer read and left unacknowledged for `lockMs`. */
  private async reclaim(): Promise<void> {
    this.nextReclaim = Date.now() + this.options.lockMs / 2;
    let cursor = '0-0';
    do {
      const [next, entries] = (await this.options.command.xautoclaim(
        this.options.stream,
        COMPLETIONS_GROUP,
        this.consumer,
        this.options.lockMs,
        cursor,
        'COUNT',
        BATCH,
      )) as [string, Entries, string[]];
      await this.record(entries);
      cursor = next;
    } while (cursor !== '0-0' && this.running);
  }

  private async record(entries: Entries): Promise<void> {
    const done: string[] = [];
    await Promise.all(
      entries.map(async ([id, fields]) => {
        try {
          await this.recordOne(fields);
          done.push(id);
        } catch (error) {
          // Left pending: the next reclaim reads it again.
          this.options.logger.warn(
            { entry: id, err: error instanceof Error ? error.message : String(error) },
            'recording a completion failed; it is read again after the lock time',
          );
        }
      }),
    );
    if (done.length === 0) return;
    // Delete first, then acknowledge (one round trip: the command connection's writes of one turn leave together). A crash between the two
    // leaves a pending id of a deleted entry, which the next XAUTOCLAIM drops.
    const { command, stream } = this.options;
    await Promise.all([command.xdel(stream, ...done), command.xack(stream, COMPLETIONS_GROUP, ...done)]);
  }

  private async recordOne(fields: string[]): Promise<void> {
    const json = fields[fields.indexOf('r') + 1];
    let report: CompletionJob | null = null;
    try {
      report = json === undefined ? null : (JSON.parse(json) as CompletionJob);
    } catch {
      report = null;
    }
    const unsupported =
      report === null ? 'the entry holds no report (field r)' : unsupportedVersion(report, 'this gateway');
    if (report === null || unsupported !== null) {
      this.options.logger.warn({ err: unsupported }, 'completion report refused; deleted unread');
      return;
    }
    await this.options.record(report);
  }

  /** Stops reading; the connections' owner closes the reader (which ends a blocked read at once). */
  async close(): Promise<void> {
    this.running = false;
    this.options.reader.disconnect();
    await this.loop;
  }
}
