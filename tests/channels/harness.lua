-- harness.lua — runs one channels test script against one build of the library.
--   lua5.4 harness.lua LIBDIR MODULE SCRIPT
-- Loads MODULE (channels_lock, channels_tm, channels_tm_busywait) from LIBDIR as the global
-- `luaproc` (as luaproc's own scripts have it), checks which libitm.so.1 the process mapped
-- when CH_EXPECT_LIBITM names a directory (TM builds: tmkit's build/lib or the system's), runs
-- SCRIPT, and prints "ok" when it returns. A failed check is a Lua error: non-zero exit.
local libdir, module, script = ...
assert(script, "usage: harness.lua LIBDIR MODULE SCRIPT")
package.cpath = libdir .. "/?.so;" .. package.cpath
luaproc = require(module)

local function realpath(p)
  local f = io.popen("realpath '" .. p .. "'")
  local r = f:read("l")
  f:close()
  return r
end

local expect = os.getenv("CH_EXPECT_LIBITM")
if expect and expect ~= "" then
  local mapped
  for line in io.lines("/proc/self/maps") do
    local path = line:match("(/%S*libitm%.so[%.%d]*)$")
    if path then mapped = path break end
  end
  assert(mapped, "no libitm.so mapped")
  local dir = realpath(mapped):match("^(.*)/[^/]*$")
  assert(dir == realpath(expect), "libitm from " .. dir .. ", expected " .. realpath(expect))
end

-- Helpers for the scripts.
function check(cond, ...)
  if not cond then error(table.concat({"check failed:", ...}, " "), 2) end
end

-- The main script's blocking receive (polls: the main state is not a process).
function collect(chan, n)
  local got = {}
  for i = 1, n do
    got[i] = table.pack(luaproc.receive(chan))
  end
  return got
end

dofile(script)
luaproc.wait()
print("ok " .. script:match("[^/]*$") .. " " .. luaproc.build)
