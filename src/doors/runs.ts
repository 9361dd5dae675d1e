import { Router } from 'express';
import { askBodySchema, runFieldSchema } from '../core/ask-body-schema.js';
import { jsonBody } from './json-body.js';
import type { AskRequest } from '../core/ask-request.js';
import { AskgateError, invalid } from '../core/errors.js';
import type { InteractionService } from '../core/interaction-service.js';
import type { JsonSchema } from '../core/types.js';
import type { ParkService } from '../runs/park-service.js';
import { identityOf, type TokenAuthenticator } from './auth.js';

/** The most asks one fan-out parks: enough for any parallel step, small enough to write in one Redis step. */
const MAX_ASKS = 50;

/**
 * `POST /api/runs` parks a run on several async asks at once (a fan-out): every ask is validated first, then all
 * are written and the run parked in one step, or nothing is written. `GET /api/runs/{run_id}` shows a run to its
 * identity (and to the identity of its parent run, which answers its asks to the caller).
 */
export function runsRouter(service: InteractionService, parks: ParkService | null, auth: TokenAuthenticator): Router {
  const router = Router();
  const body = jsonBody('1mb');

  router.post('/api/runs', auth.require('write'), body, async (req, res) => {
    const requests = parseRunsBody(req.body, service);
    if (parks === null)
      throw new AskgateError(
        'conflict',
        'an async park needs a durable store that survives a worker hop, and the in-memory store does not; set REDIS_URL.',
        { field: 'run' },
      );
    const identity = identityOf(req);
    const interactions = await service.park(requests, identity);
    const run = await parks.view(requests[0]?.run?.run_id as string, identity);
    res.status(201).json({ run, interactions, suspended: true });
  });

  router.get('/api/runs/:id', auth.require('read'), async (req, res) => {
    if (parks === null)
      throw new AskgateError('not_found', 'this gateway keeps no runs (the in-memory store parks nothing).');
    res.json(await parks.view(req.params['id'] as string, identityOf(req)));
  });

  return router;
}

/**
 * The `POST /api/runs` body as JSON Schema, from the ask body's schema and the rules of `parseRunsBody`: each ask is
 * an ask body without `run` (the one beside them parks) and without `timeout`, its `mode` "async" or omitted.
 */
export function runsBodySchema(): JsonSchema {
  const ask = askBodySchema();
  const { run: _run, timeout: _timeout, ...fields } = ask['properties'] as Record<string, JsonSchema>;
  return {
    type: 'object',
    additionalProperties: false,
    required: ['run', 'asks'],
    properties: {
      run: runFieldSchema(),
      asks: {
        type: 'array',
        minItems: 1,
        maxItems: MAX_ASKS,
        items: { ...ask, properties: { ...fields, mode: { type: 'string', enum: ['async'] } } },
      },
    },
  };
}

/** `{"run": {...}, "asks": [...]}` → validated async asks, each carrying the run; a refusal names `asks[i].<field>`. */
function parseRunsBody(raw: unknown, service: InteractionService): AskRequest[] {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw invalid('body', 'the body must be {"run": {...}, "asks": [ask bodies]}.');
  const b = raw as Record<string, unknown>;
  const extra = Object.keys(b).find((k) => k !== 'run' && k !== 'asks');
  if (extra !== undefined) throw invalid(extra, `${extra} is not a field of POST /api/runs; send {"run", "asks"}.`);
  if (b['run'] === undefined)
    throw invalid('run', 'run is required: {"run_id", "resume", "kind"?, "parent_run_id"?, "state"?}.');
  const asks = b['asks'];
  if (!Array.isArray(asks) || asks.length < 1 || asks.length > MAX_ASKS)
    throw invalid('asks', `asks must be a list of 1..${MAX_ASKS} ask bodies.`);
  return asks.map((ask: unknown, i) => {
    if (ask === null || typeof ask !== 'object' || Array.isArray(ask))
      throw invalid(`asks[${i}]`, `asks[${i}] must be an ask body object.`);
    const a = ask as Record<string, unknown>;
    if (a['run'] !== undefined)
      throw invalid(
        `asks[${i}].run`,
        `asks[${i}].run is not allowed: every ask of a fan-out parks the one run given beside them.`,
      );
    if (a['mode'] !== undefined && a['mode'] !== 'async')
      throw invalid(`asks[${i}].mode`, `asks[${i}].mode must be "async" (or omitted): a fan-out parks.`);
    try {
      return service.validate({ ...a, mode: 'async', run: b['run'] });
    } catch (err) {
      if (err instanceof AskgateError && err.field !== undefined && !err.field.startsWith('run')) {
        throw new AskgateError(err.code, `asks[${i}]: ${err.message}`, {
          field: `asks[${i}].${err.field}`,
          extra: err.extra,
        });
      }
      throw err;
    }
  });
}
