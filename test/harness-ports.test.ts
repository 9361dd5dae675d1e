import { describe, expect, it } from 'vitest';
import { ExitedEarly, onFreePort } from './helpers/redis-server.js';

/**
 * The test servers (redis-server, PostgreSQL, cluster nodes) start on a port the OS hands out, which another test run
 * on the machine can take before the server binds it: a server that exits before it is ready is started again on
 * another port, five ports at most; any other failure is not retried.
 */
describe('onFreePort', () => {
  it('starts again on another port when the server exits before it is ready', async () => {
    const tried: number[] = [];
    const started = await onFreePort(async (port) => {
      tried.push(port);
      if (tried.length < 3) throw new ExitedEarly('exited with code 1 before answering PING');
      return 'up';
    });
    expect(tried).toHaveLength(3);
    expect(started).toEqual({ port: tried[2], child: 'up' });
  });

  it('gives up after five ports, with the last exit', async () => {
    let tries = 0;
    await expect(
      onFreePort(async () => {
        tries++;
        throw new ExitedEarly(`exit ${tries}`);
      }),
    ).rejects.toThrow('exit 5');
    expect(tries).toBe(5);
  });

  it('does not retry a failure that is not an early exit (a missing binary)', async () => {
    let tries = 0;
    await expect(
      onFreePort(async () => {
        tries++;
        throw new Error('cannot start redis-server: spawn redis-server ENOENT');
      }),
    ).rejects.toThrow('ENOENT');
    expect(tries).toBe(1);
  });
});
