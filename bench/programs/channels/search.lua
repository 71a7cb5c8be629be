-- The paper's third test (Table 2): parallel string search. The main script is the master; a
-- feeder process hands (file, pattern) tasks to S searcher processes over one channel, a
-- coordinator process sums their counts from another and gives the master the total; W
-- workers run them. (Channels are rendezvous: feeding and collecting are separate processes,
-- so neither waits on the other.)
--   lua5.4 search.lua LIBDIR MODULE WORKERS SEARCHERS FILE1,FILE2,... 'PATTERN1|PATTERN2|...'
local dir = arg[0]:match("^(.*)/[^/]*$") or "."
local workers, searchers, files, patterns = dofile(dir .. "/common.lua")
luaproc.setnumworkers(workers)
for _, c in ipairs({"tasks", "results", "total"}) do luaproc.newchannel(c) end
local ntasks = 0
for _ in files:gmatch("[^,]+") do for _ in patterns:gmatch("[^|]+") do ntasks = ntasks + 1 end end

for i = 1, searchers do
  luaproc.newproc([[
    local io, string = require "io", require "string"
    while true do
      local file, pat = luaproc.receive("tasks")
      if not file then break end
      local f = assert(io.open(file, "rb"))
      local text = f:read("a")
      f:close()
      local n, pos = 0, 1
      while true do
        local _, e = string.find(text, pat, pos, true)
        if not e then break end
        n, pos = n + 1, e + 1
      end
      luaproc.send("results", n)
    end
  ]])
end
luaproc.newproc(string.format([[
  local string = require "string"
  for f in string.gmatch(%q, "[^,]+") do
    for p in string.gmatch(%q, "[^|]+") do luaproc.send("tasks", f, p) end
  end
  for i = 1, %d do luaproc.send("tasks", false) end
]], files, patterns, searchers))
luaproc.newproc(string.format([[
  local sum = 0
  for i = 1, %d do sum = sum + luaproc.receive("results") end
  luaproc.send("total", sum)
]], ntasks))
local sum = luaproc.receive("total")
luaproc.wait()
print(string.format("ok=1 matches=%d tasks=%d", sum, ntasks))
