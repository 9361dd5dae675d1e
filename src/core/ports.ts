/**
 * The ports of the core: everything the core needs from the outside, as interfaces defined here and handed to it at
 * construction. The implementations (the stores, the channel registry, the park service, the logger and metrics)
 * import these; the core imports none of them, so every arrow points into the core.
 */
import type { ChannelCapabilities } from './channel-capabilities.js';
import type { SettledRun } from './store-port.js';
import type { Identity, InteractionRecord, RunSpec, StoredInteraction } from './types.js';

export type {
  AddSurfaceOutcome,
  AnswerClaimOutcome,
  AnswerFacts,
  Resolution,
  ResolveOutcome,
  SettledRun,
  Store,
  VoteOutcome,
} from './store-port.js';

/** The time source of the core, in epoch milliseconds (a fixed clock in tests). */
export type Clock = () => number;

/** What the core writes to the log: warnings and errors about side effects that must not fail the caller. */
export interface CoreLogger {
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

/** A labelled counter (a Prometheus counter fits). */
export interface CoreCounter<L extends string> {
  inc(labels: Partial<Record<L, string>>): void;
}

/** The figures the core counts. */
export interface CoreMetrics {
  asks: CoreCounter<'format' | 'channel' | 'mode'>;
  answers: CoreCounter<'format' | 'surface'>;
  expiries: CoreCounter<'format'>;
  cancels: CoreCounter<'format'>;
  timeToAnswer: { observe(labels: Partial<Record<'format' | 'surface', string>>, seconds: number): void };
}

/** The settings the core reads, by the same names as the gateway's configuration. */
export interface CoreSettings {
  /** The public base URL callback URLs are minted under; null when none is set (then no ask may need one). */
  publicBaseUrl: string | null;
  /** The sync wait of an ask that names none, in seconds. */
  defaultTimeoutSeconds: number;
  /** How far ahead an async ask's deadline may lie, in minutes. */
  retentionWaitingMinutes: number;
  /** How long a resolved interaction stays readable, in seconds. */
  idleTtlSeconds: number;
  /** A resume webhook may name a loopback, private or link-local address (development only); absent: refused. */
  webhookAllowPrivate?: boolean;
}

/** A chat channel as the core sees it: it names itself, says what it can deliver, delivers and shows outcomes. */
export interface ChannelPort {
  /** The channel's name, which is also the `surface` of the answers it offers. */
  readonly name: string;
  readonly capabilities: ChannelCapabilities;
  /** Renders and sends the question; returns the platform references of the sent message. Throws on failure. */
  deliver(interaction: StoredInteraction, callbackUrl: string): Promise<Record<string, string>>;
  /** After an answer, an expiry or a cancel: the question message shows the outcome and loses its buttons. */
  showOutcome?(interaction: StoredInteraction): Promise<void>;
  /** After a counted vote on a pending quorum question: the message shows the live count, its buttons kept. */
  showVotes?(interaction: StoredInteraction): Promise<void>;
}

/**
 * The follow-ups of a pending question (`remind`, `escalate`): scheduled as delayed queue jobs under ids fixed by the
 * question and the step, so scheduling twice adds nothing; cancelled when the question resolves. Null (or absent)
 * where no durable queue runs (the in-memory store), and the fields are refused there.
 */
export interface FollowUpPort {
  /** Schedules every reminder and escalation step of `record` (one that has `remind` or `escalate`). */
  schedule(record: StoredInteraction): Promise<void>;
  /** Removes the steps still waiting; a step already running finds the question resolved and does nothing. */
  cancel(record: StoredInteraction): Promise<void>;
}

/** The channels a gateway runs, by name. */
export interface ChannelDirectory {
  get(name: string): ChannelPort | undefined;
  /** Every registered name, sorted (for the refusal of an unknown channel). */
  names(): string[];
}

/** One park to write: the run, its owner, and the records of its asks as the core built them. */
export interface ParkWrite {
  identity: Identity;
  run: RunSpec;
  /** Every ask of the park, built by the core (ids, tickets, deadlines), not yet delivered. */
  records: StoredInteraction[];
}

/**
 * What the core needs from parks. The core builds an async ask's records and delivers its channel asks itself;
 * the park side only checks the park as a whole (the run's target, its parent) and writes records and run in one
 * atomic step, hears which runs a resolve settled, and guards asks to the caller.
 */
export interface ParkPort {
  /** Checks the rules of the park as a whole, then writes every record and parks the run in one step, or nothing. */
  write(park: ParkWrite): Promise<void>;
  /** A resolve settled a run: enqueue its one resume job. Never throws (the straggler sweep is the safety net). */
  settled(run: SettledRun): void;
  /** Throws `forbidden` unless `answeredBy` may answer `stored` (an ask to the caller: the parent run's identity). */
  mayAnswer(stored: StoredInteraction, answeredBy: string): Promise<void>;
}

/** The response to one parked ask: the record, `suspended`, and the callback URL for the asker alone. */
export type ParkedAsk = InteractionRecord & { suspended: true };
