-- wrk script for bench/http_bench.py: POST /mcp over a fixed mix of JSON-RPC tools/call bodies.
--
--   wrk -t1 -c32 -d10s --latency -s bench/mix.lua http://127.0.0.1:PORT/mcp -- BODIES.lua TOKEN
--
-- BODIES.lua (written by http_bench.py) returns a Lua array of request bodies, so every server
-- gets the same requests in the same order. Every server gets the same headers too: the bearer
-- token (ours checks it, the others ignore it), Accept with both types and MCP-Protocol-Version
-- (what the SDK's stateless JSON mode needs).
--
-- A response counts as bad when its status is not 2xx or its body is a JSON-RPC error or a tool
-- error (isError true): a server that fails fast must not look fast. done() prints one line
-- "BENCH_JSON {...}" that http_bench.py parses.

local requests = {}
local count = 0
local index = 0

-- Per-thread counters, read from done() through thread:get().
responses = 0
bad_status = 0
bad_body = 0

local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  local bodies = dofile(args[1])
  local headers = {
    ["Content-Type"] = "application/json",
    ["Accept"] = "application/json, text/event-stream",
    ["MCP-Protocol-Version"] = "2025-06-18",
    ["Authorization"] = "Bearer " .. args[2],
  }
  for i, body in ipairs(bodies) do
    requests[i] = wrk.format("POST", nil, headers, body)
  end
  count = #requests
  -- Threads start at different offsets of the same cyclic sequence.
  index = (tonumber(args[3] or "0") or 0) % count
end

function request()
  index = index + 1
  if index > count then
    index = 1
  end
  return requests[index]
end

function response(status, headers, body)
  responses = responses + 1
  if status < 200 or status > 299 then
    bad_status = bad_status + 1
  elseif body:find('"isError":%s*true') or body:find('"error":%s*{') then
    bad_body = bad_body + 1
  end
end

function done(summary, latency, requests_stats)
  local total_responses, total_bad_status, total_bad_body = 0, 0, 0
  for _, thread in ipairs(threads) do
    total_responses = total_responses + (thread:get("responses") or 0)
    total_bad_status = total_bad_status + (thread:get("bad_status") or 0)
    total_bad_body = total_bad_body + (thread:get("bad_body") or 0)
  end
  local e = summary.errors
  io.write(string.format(
    'BENCH_JSON {"requests":%d,"duration_us":%d,"bytes":%d,' ..
    '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
    '"responses":%d,"bad_status":%d,"bad_body":%d,' ..
    '"latency_us":{"min":%d,"mean":%.1f,"stdev":%.1f,"max":%d,"p50":%d,"p90":%d,"p99":%d,"p999":%d}}\n',
    summary.requests, summary.duration, summary.bytes,
    e.connect, e.read, e.write, e.status, e.timeout,
    total_responses, total_bad_status, total_bad_body,
    latency.min, latency.mean, latency.stdev, latency.max,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency:percentile(99.9)))
end
