/**
 * The Store port is defined by the core (`src/core/store-port.ts`), which the implementations here depend on; this
 * module re-exports it so `src/store/` code and its tests import the interface from next door.
 */
export type {
  AddSurfaceOutcome,
  AnswerClaimOutcome,
  AnswerFacts,
  AskPlacement,
  FixedWindowHit,
  PendingPage,
  PendingQuery,
  PresetVersion,
  Resolution,
  ResolveOutcome,
  SettledRun,
  Store,
  StoreOptions,
  VoteOutcome,
} from '../core/store-port.js';
