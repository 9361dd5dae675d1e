import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { AskgateError } from '../../src/core/errors.js';
import { errorResponse } from '../../src/doors/error-status.js';

/** A logger that keeps its lines, to see what an unexpected error leaves in the log. */
function keptLogger(): { logger: pino.Logger; lines: string[] } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { logger: pino({ level: 'info' }, sink), lines };
}

describe('the error every door answers with', () => {
  it('answers an unexpected failure 500 internal_error, logged with its stack, never as the store being away', () => {
    const { logger, lines } = keptLogger();
    const response = errorResponse(new TypeError('cannot read properties of undefined'), logger);
    expect(response.status).toBe(500);
    expect(response.body['error']).toBe('internal_error');
    // No Retry-After: nothing says a retry would fare better.
    expect(response.headers).toEqual({});
    expect(lines.join('')).toMatch(
      /unhandled error in a door.*cannot read properties of undefined|cannot read properties of undefined.*unhandled error in a door/,
    );
  });

  it('answers the store being away 503 store_unavailable with Retry-After', () => {
    const { logger } = keptLogger();
    const response = errorResponse(new AskgateError('store_unavailable', 'Redis command failed'), logger);
    expect(response.status).toBe(503);
    expect(response.body['error']).toBe('store_unavailable');
    expect(response.headers['Retry-After']).toBe('2');
  });
});
