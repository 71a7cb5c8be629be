-- common.lua — loads a channels build for the benchmark scripts (tools/tmkit_cli/bench/channels.py).
--   lua5.4 SCRIPT.lua LIBDIR MODULE ARGS...   (the script does dofile(common) first)
-- Sets the global `luaproc` and returns the remaining arguments as numbers or strings.
local libdir, module = arg[1], arg[2]
assert(module, "usage: lua5.4 SCRIPT.lua LIBDIR MODULE ARGS...")
package.cpath = libdir .. "/?.so;" .. package.cpath
luaproc = require(module)
local rest = {}
for i = 3, #arg do rest[#rest + 1] = tonumber(arg[i]) or arg[i] end
return table.unpack(rest)
