-- wait() returns once every process has finished, parked ones included once they are woken.
luaproc.setnumworkers(3)
local path = os.tmpname()
for i = 1, 12 do
  luaproc.newproc(string.format([[
    local io, os = require "io", require "os"
    local t = os.clock() + 0.01 * (%d %% 4)
    while os.clock() < t do end
    local f = assert(io.open(%q, "a"))
    f:write("line\n")
    f:close()
  ]], i, path))
end
luaproc.wait()
local n = 0
for _ in io.lines(path) do n = n + 1 end
os.remove(path)
check(n == 12, "after wait(): " .. n .. " of 12 processes done")
-- Processes parked on a channel are active: wait() returns only after another process has
-- released them and they have finished. On one worker (FIFO) the two receivers and the sender
-- park before the releaser runs; it spins ~20 ms first, and each released process spins again
-- before its side effect, so a wait() that returned early would find the file incomplete.
luaproc.setnumworkers(1)
luaproc.newchannel("w")
luaproc.newchannel("w2")
local parked = os.tmpname()
local effect = [[
  local io, os = require "io", require "os"
  local t = os.clock() + 0.02
  while os.clock() < t do end
  local f = assert(io.open(%q, "a"))
  f:write(%s, "\n")
  f:close()
]]
for i = 1, 2 do
  luaproc.newproc([[ local v = luaproc.receive("w") ]] .. string.format(effect, parked, '"received " .. v'))
end
luaproc.newproc([[ local ok = luaproc.send("w2", "x") ]] .. string.format(effect, parked, '"sent " .. tostring(ok)'))
luaproc.newproc([[
  local os = require "os"
  local t = os.clock() + 0.02
  while os.clock() < t do end
  luaproc.send("w", "a")
  luaproc.send("w", "b")
  luaproc.receive("w2")
]])
luaproc.wait()
local lines = {}
for l in io.lines(parked) do lines[#lines + 1] = l end
os.remove(parked)
table.sort(lines)
check(table.concat(lines, ",") == "received a,received b,sent true",
      "after wait(), the released processes' lines: " .. table.concat(lines, ","))
