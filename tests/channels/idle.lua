-- Idle workers and waits: do they sleep? (the issue's central claim). Four workers and the main
-- script have nothing to do for 0.5 s: three processes are parked on a receive, a fourth
-- blocks its worker in a child `sleep 0.5` and then releases them, and the main script is in
-- wait(). The process's CPU time (user + system, every thread: os.clock) over that time must
-- stay below CH_IDLE_CPU_BELOW seconds, or exceed CH_IDLE_CPU_ABOVE (the busy-wait build,
-- whose waiting workers spin). Both bounds are absolute, so a loaded machine does not make a
-- sleeping build fail; it only slows the spinning one down.
local below = tonumber(os.getenv("CH_IDLE_CPU_BELOW") or "")
local above = tonumber(os.getenv("CH_IDLE_CPU_ABOVE") or "")
check(below or above, "set CH_IDLE_CPU_BELOW or CH_IDLE_CPU_ABOVE")
luaproc.setnumworkers(4)
luaproc.newchannel("idle")
for i = 1, 3 do
  luaproc.newproc([[ assert(luaproc.receive("idle")) ]]) -- a failure shows on stderr (stderr.sh)
end
luaproc.newproc([[
  local io = require "io"
  local p = io.popen("sleep 0.5")
  p:read("a")
  p:close()
  for i = 1, 3 do luaproc.send("idle", i) end
]])
local t0 = os.clock()
luaproc.wait()
local cpu = os.clock() - t0
print(string.format("idle: %.3f s of CPU over 0.5 s (%s)", cpu, luaproc.build))
if below then check(cpu < below, string.format("idle CPU %.3f s, expected below %g", cpu, below)) end
if above then check(cpu > above, string.format("idle CPU %.3f s, expected above %g", cpu, above)) end
