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
-- a process parked on a channel is active: wait() returns after it is released
luaproc.newchannel("w")
luaproc.newproc([[ luaproc.receive("w") ]])
luaproc.send("w", "go")
luaproc.wait()
