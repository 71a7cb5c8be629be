-- Per-channel ordering and message contents: with several workers, pairs of processes each
-- exchange a sequence over their own channel, and several senders share one channel; every
-- receiver sees each sender's messages in the order they were sent, values intact.
luaproc.setnumworkers(4)
local N = 300

luaproc.newchannel("results")
for pair = 1, 3 do
  local ch = "pair" .. pair
  luaproc.newchannel(ch)
  luaproc.newproc(string.format([[
    for i = 1, %d do
      assert(luaproc.send(%q, i, "s" .. i, i %% 2 == 0, nil, i + 0.5, "a\0b"))
    end
  ]], N, ch))
  luaproc.newproc(string.format([[
    local math = require "math" -- a process opens only base and package, as in luaproc
    local ok = true
    for i = 1, %d do
      local n, s, b, z, f, bin = luaproc.receive(%q)
      if not (n == i and math.type(n) == "integer" and s == "s" .. i and b == (i %% 2 == 0)
              and z == nil and f == i + 0.5 and math.type(f) == "float" and bin == "a\0b") then
        ok = false
      end
    end
    luaproc.send("results", %q, ok)
  ]], N, ch, ch))
end

-- three senders on one channel, one receiver: each sender's sequence stays in order
luaproc.newchannel("shared")
for s = 1, 3 do
  luaproc.newproc(string.format([[
    for i = 1, %d do luaproc.send("shared", %d, i) end
  ]], N, s))
end
luaproc.newproc(string.format([[
  local last, ok = {0, 0, 0}, true
  for k = 1, 3 * %d do
    local s, i = luaproc.receive("shared")
    if i ~= last[s] + 1 then ok = false end
    last[s] = i
  end
  luaproc.send("results", "shared", ok and last[1] == %d and last[2] == %d and last[3] == %d)
]], N, N, N, N))

local seen = {}
for _, r in ipairs(collect("results", 4)) do
  check(r[2] == true, "order broken on", r[1])
  seen[r[1]] = true
end
check(seen.pair1 and seen.pair2 and seen.pair3 and seen.shared, "missing results")
-- many values in one message
luaproc.newchannel("wide")
luaproc.newproc([[
  local table = require "table"
  local t = {}
  for i = 1, 200 do t[i] = i end
  luaproc.send("wide", table.unpack(t))
]])
local w = table.pack(luaproc.receive("wide"))
check(w.n == 200 and w[1] == 1 and w[200] == 200, "wide message")
