-- wl_wrk_urls.lua: drive wrk with a webcache-urls list, for cross-checking webcache-load.
--
--   wrk -t T -c C -d 5s -s apps/loadgen/wl_wrk_urls.lua http://127.0.0.1:PORT -- urls.txt
--
-- Every wrk thread reads the list (paths, or full URLs whose address part is dropped) and
-- requests its entries in order, wrapping; thread k starts 7919*k entries in (mod the list's
-- length) so the threads do not send the same sequence in lockstep. At the end one line is printed:
--   wl_wrk {"requests": N, "seconds": S, "rps": R, "mean_ms": M, "p50_ms": ..., "p99_ms": ...,
--           "bytes": B, "errors": E, "non2xx": X}
-- (wrk's own "Non-2xx or 3xx responses" counts statuses >= 400 only; non2xx here is that count.)

local thread_count = 0

function setup(thread)
  thread:set("wl_id", thread_count)
  thread_count = thread_count + 1
end

local paths, next_index = {}, 1

function init(args)
  local file = args[1]
  if not file then
    error("wl_wrk_urls.lua: give the URL file after --")
  end
  for line in io.lines(file) do
    line = line:gsub("%s+$", "")
    if line ~= "" then
      local path = line:match("^https?://[^/]+(/.*)$") or line
      paths[#paths + 1] = path
    end
  end
  if #paths == 0 then
    error("wl_wrk_urls.lua: no URLs in " .. file)
  end
  local id = tonumber(wl_id) or 0
  next_index = (7919 * id) % #paths + 1
end

function request()
  local path = paths[next_index]
  next_index = next_index + 1
  if next_index > #paths then
    next_index = 1
  end
  return wrk.format("GET", path)
end

function done(summary, latency, requests)
  local e = summary.errors
  local seconds = summary.duration / 1e6
  io.write(string.format(
    'wl_wrk {"requests": %d, "seconds": %.3f, "rps": %.1f, "mean_ms": %.3f, "p50_ms": %.3f, ' ..
    '"p90_ms": %.3f, "p99_ms": %.3f, "max_ms": %.3f, "bytes": %d, "errors": %d, "non2xx": %d}\n',
    summary.requests, seconds, summary.requests / seconds, latency.mean / 1000,
    latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000,
    latency.max / 1000, summary.bytes, e.connect + e.read + e.write + e.timeout, e.status))
end
