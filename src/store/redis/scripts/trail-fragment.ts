// The audit trail's Lua, spliced beside fragments.ts' RECORD into every script that writes an event.

/**
 * The audit trail (src/store/audit-trail.ts): envelope part 9 is a JSON array of entries
 * `[type, at epoch ms, surface, by, detail]` (trailing nulls dropped), one per event after `created` (which is
 * derived from the body); `seq` is the position. A transition script that causes an event appends its entry in the
 * same step, so the event and the transition are one atomic write:
 *
 *   ${RECORD} ${TRAIL}  ...  trailAppend(parts, entry)  ...  redis.call('SET', key, joinRecord(parts), ...)
 *
 * `trailAppend(parts, entry)`: appends `entry` (JSON text, built by the caller in Node with `trailEntry` of
 * audit-trail.ts and passed in ARGV; never re-encoded here) to parts[9]. Needs RECORD's parts.
 * `trailEntryOf(type, atMs, surfaceJson, byJson, detailJson)`: an entry built here, from JSON texts ('null' or ''
 * for absent), trailing nulls dropped as trailEntry does: for a script that learns a member from the record itself.
 * `channelOf(parts)`: the record's channel (body member ch) as JSON text, or 'null'.
 * `ownChannelOf(parts)`: an event's surface when it is the record's channel: '0' (the reader, eventOf in
 * audit-trail.ts, reads it as body member ch, which never changes), or 'null' for a record without a channel.
 * `terminalEntry(letter, nowMs)`: the marker a resolve appends, `["answered",<ms>]` (a, e, c); the reader derives
 * who answered, where and what from the result part written in the same step.
 * Hashes are sealed by the reader (part 10), never here.
 */
export const TRAIL = `
local function trailAppend(parts, entry)
  if parts[9] == '' then
    parts[9] = '[' .. entry .. ']'
  else
    parts[9] = string.sub(parts[9], 1, -2) .. ',' .. entry .. ']'
  end
end

local function trailEntryOf(type, atMs, surfaceJson, byJson, detailJson)
  local members = { cjson.encode(type), string.format('%d', atMs), surfaceJson or 'null', byJson or 'null', detailJson or 'null' }
  local n = 5
  while n > 2 and (members[n] == 'null' or members[n] == '') do n = n - 1 end
  for i = 3, n do if members[i] == '' then members[i] = 'null' end end
  return '[' .. table.concat(members, ',', 1, n) .. ']'
end

local function channelOf(parts)
  local ok, body = pcall(cjson.decode, parts[2])
  if ok and type(body) == 'table' and type(body.ch) == 'string' then return cjson.encode(body.ch) end
  return 'null'
end

local function ownChannelOf(parts)
  if channelOf(parts) == 'null' then return 'null' end
  return '0'
end

local TERMINAL_EVENT = { a = 'answered', e = 'expired', c = 'cancelled' }
local function terminalEntry(letter, nowMs)
  return '["' .. TERMINAL_EVENT[letter] .. '",' .. nowMs .. ']'
end
`;
