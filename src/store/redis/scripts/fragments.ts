/**
 * Lua helpers spliced into several scripts. A record is one string, the envelope of `record-codec.ts`: parts joined
 * by `\n` (1 status letter, 2 body, 3 group, 4 ticket hash, 5 schema hash, 6 result, 7 resolved_at, 8 delivery;
 * every part but the status is JSON text or empty). Scripts split and rejoin it with plain string operations and
 * never re-encode JSON (cjson would turn `[]` into `{}` and corrupt schemas); `cjson.decode` is used only on parts
 * 3 to 5, single JSON strings, to name keys, and `cjson.encode` only on whole strings. Both are exact for strings.
 */

/**
 * `splitRecord(text)`: the eight parts ('' when absent).
 * `joinRecord(parts)`: the envelope again, trailing empty parts dropped.
 * `readRecord(key, schemaPrefix)`: false when the key is gone, else the envelope, its parts and its schema JSON
 * (false when it has none).
 */
export const RECORD = `
local function splitRecord(text)
  local parts = {}
  local start = 1
  for i = 1, 8 do
    local stop = string.find(text, '\\n', start, true)
    if stop then
      parts[i] = string.sub(text, start, stop - 1)
      start = stop + 1
    else
      parts[i] = string.sub(text, start)
      start = #text + 2
    end
  end
  return parts
end

local function joinRecord(parts)
  local n = 8
  while n > 2 and parts[n] == '' do n = n - 1 end
  return table.concat(parts, '\\n', 1, n)
end

local function readRecord(key, schemaPrefix)
  local text = redis.call('GET', key)
  if not text then return false end
  local parts = splitRecord(text)
  local schema = false
  if parts[5] ~= '' then schema = redis.call('GET', schemaPrefix .. cjson.decode(parts[5])) end
  return text, parts, schema
end
`;

/**
 * `eventJson(type, id, text, schema)`: the message published on the events channel. It carries the whole envelope
 * and the schema's JSON text (each as a JSON string), so a subscriber rebuilds the record without another read.
 */
export const EVENT_JSON = `
local function eventJson(type, id, text, schema)
  return '{"e":"' .. type .. '","i":' .. cjson.encode(id) .. ',"v":' .. cjson.encode(text) ..
    ',"S":' .. (schema and cjson.encode(schema) or 'null') .. '}'
end
`;

/**
 * `extendTo(key, atMs, nowMs)`: pushes `key`'s expiry out to `atMs` unless it already lasts longer (or forever).
 * Written with PTTL rather than `PEXPIREAT ... GT` so it runs on Redis before 7.
 */
export const EXTEND_TO = `
local function extendTo(key, atMs, nowMs)
  local pttl = redis.call('PTTL', key)
  if pttl < 0 then return end
  if nowMs + pttl < atMs then redis.call('PEXPIREAT', key, atMs) end
end
`;
