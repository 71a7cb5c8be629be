-- The paper's first test (Figure 11): one long-running Lua process, W workers. The other
-- W - 1 workers have nothing to run: how much CPU their waiting costs is the measurement.
--   lua5.4 long.lua LIBDIR MODULE WORKERS ITERATIONS
local dir = arg[0]:match("^(.*)/[^/]*$") or "."
local workers, iters = dofile(dir .. "/common.lua")
luaproc.setnumworkers(workers)
luaproc.newchannel("result")
luaproc.newproc(string.format([[
  local x = 0
  for i = 1, %d do x = x + i %% 7 end
  luaproc.send("result", x)
]], iters))
local x = luaproc.receive("result")
local want = 0
for r = 0, 6 do want = want + r * (iters // 7 + ((iters % 7 >= r and r > 0) and 1 or 0)) end
luaproc.wait()
print(string.format("ok=%d", x == want and 1 or 0))
