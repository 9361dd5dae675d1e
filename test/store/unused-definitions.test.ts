import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withoutUnusedDefinitions } from '../../src/store/redis/scripts/unused-definitions.js';
import { RESOLVE } from '../../src/store/redis/scripts/resolve.js';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server.js';

const SCRIPT = `--[[
  header: names helperNobodyCalls, which does not keep it
local function inHeader()
]]
local LIMIT = 3
local UNUSED_TABLE = { a = 1, b = 2 }
-- the helper of a helper
local function inner(x)
  return x + LIMIT
end

local function outer(x)
  return inner(x) * 2
end
-- nobody calls this one
local function helperNobodyCalls()
  return outer(1)
end
local function oneLiner(x) return x end
local function sideEffect(key)
  return redis.call('INCR', key .. ':n')
end
local written = redis.call('SET', KEYS[1], 'v')
local countedButUnread = sideEffect(KEYS[1])
local unusedButPure = string.rep('x', 3) .. tostring(7)
-- helperNobodyCalls() is named in a comment only
return outer(tonumber(ARGV[1]))
`;

describe('withoutUnusedDefinitions', () => {
  const kept = withoutUnusedDefinitions(SCRIPT);

  it('keeps what the script uses, transitively, and drops what nothing reads', () => {
    expect(kept).toContain('local function outer(x)');
    expect(kept).toContain('local function inner(x)');
    expect(kept).toContain('local LIMIT = 3');
    expect(kept).not.toContain('local function helperNobodyCalls()');
    expect(kept).not.toContain('-- nobody calls this one');
    expect(kept).not.toContain('UNUSED_TABLE');
    expect(kept).not.toContain('oneLiner');
    expect(kept).not.toContain('unusedButPure');
  });

  it('keeps the header block, comments over kept code, and every definition that calls Redis', () => {
    expect(kept.startsWith('--[[\n  header: names helperNobodyCalls')).toBe(true);
    expect(kept).toContain('local function inHeader()\n]]');
    expect(kept).toContain('-- the helper of a helper\nlocal function inner');
    expect(kept).toContain("local written = redis.call('SET', KEYS[1], 'v')");
    // A local whose value is never read still makes its call: only pure expressions go.
    expect(kept).toContain('local countedButUnread = sideEffect(KEYS[1])');
    expect(kept).toContain('local function sideEffect(key)');
    expect(kept).toContain('-- helperNobodyCalls() is named in a comment only\nreturn outer');
  });

  it('drops the resolve script’s unused bucket and trail helpers and keeps its hot path', () => {
    const resolve = withoutUnusedDefinitions(RESOLVE);
    expect(resolve.length).toBeLessThan(RESOLVE.length);
    for (const gone of ['bucketAdd', 'bucketSave', 'trailEntryOf'])
      expect(resolve).not.toMatch(`local function ${gone}(`);
    for (const used of ['readRecord', 'bucketRemove', 'trailAppend', 'eventMessage', 'runHelpers'])
      expect(resolve).toContain(`local function ${used}(`);
  });

  describe('on Redis', () => {
    let server: RedisServerHandle;
    let redis: Redis;
    beforeAll(async () => {
      server = await startRedisServer({ own: true });
      redis = new Redis(server.url);
    });
    afterAll(async () => {
      redis.disconnect();
      await server.stop();
    });

    it('runs the kept script with the spliced one’s result and effects', async () => {
      expect(await redis.eval(SCRIPT, 1, 'k1', '4')).toBe(14);
      expect(await redis.eval(kept, 1, 'k2', '4')).toBe(14);
      expect(await redis.mget('k1', 'k2', 'k1:n', 'k2:n')).toEqual(['v', 'v', '1', '1']);
    });
  });
});
