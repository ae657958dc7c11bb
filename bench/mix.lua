-- wrk script for bench/http_bench.py: POST /mcp over a fixed mix of JSON-RPC tools/call bodies.
--
--   wrk -t1 -c32 -d10s --latency -s bench/mix.lua http://127.0.0.1:PORT/mcp -- BODIES.lua TOKEN [OFFSET [LOG]]
--
-- BODIES.lua (written by http_bench.py) returns a Lua array of request bodies, so every server
-- gets the same requests in the same order. Every server gets the same headers too: the bearer
-- token (ours checks it, the others ignore it), Accept with both types and MCP-Protocol-Version
-- (what the SDK's stateless JSON mode needs).
--
-- A response counts as bad when its status is not 2xx or its body is a JSON-RPC error or a tool
-- error (isError true): a server that fails fast must not look fast. done() prints one line
-- "BENCH_JSON {...}" that http_bench.py parses.
--
-- With LOG, every request's latency is written there ("seq write_s response_s", CLOCK_MONOTONIC),
-- because wrk's own percentiles are not the requests' latencies: before printing them wrk adds,
-- for every request slower than twice the mean round trip of a connection, synthetic samples at
-- each multiple of that round trip below it (stats_correct, a coordinated-omission estimate). A
-- connection's first request waits in the server's accept queue (libuv accepts one connection
-- per event-loop turn), so a few slow first requests became hundreds of samples and wrk's p99
-- measured the start of the run (bench/RESULTS.md, "HTTP tail, session 3"). To tell the answers
-- apart, each request's JSON-RPC id is rewritten to its sequence number (fixed width: the
-- Content-Length is unchanged); the server echoes it.

local ffi = require("ffi")
ffi.cdef [[
typedef struct { long tv_sec; long tv_nsec; } bench_timespec;
int clock_gettime(int clock, bench_timespec *out);
]]
local CLOCK_MONOTONIC = 1
local now_ts = ffi.new("bench_timespec")

local function now()
  ffi.C.clock_gettime(CLOCK_MONOTONIC, now_ts)
  return tonumber(now_ts.tv_sec) + tonumber(now_ts.tv_nsec) * 1e-9
end

local SEQ_BASE = 100000000 -- nine digits until 899,999,999 requests
local requests = {}
local heads, tails = {}, {}
local count = 0
local index = 0
local seq = 0
local sent = {}
local log = nil

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
  if args[4] then
    log = assert(io.open(args[4], "w"))
  end
  for i, body in ipairs(bodies) do
    if log then
      -- Split the formatted request around its id so that request() can splice a sequence number in.
      local before, after = body:match('^(.-"id":)%d+(.*)$')
      assert(before, "every body needs a numeric JSON-RPC id")
      local request = wrk.format("POST", nil, headers, before .. SEQ_BASE .. after)
      local at = request:find('"id":' .. SEQ_BASE, 1, true)
      heads[i] = request:sub(1, at + 4)
      tails[i] = request:sub(at + 5 + #tostring(SEQ_BASE))
    else
      requests[i] = wrk.format("POST", nil, headers, body)
    end
  end
  count = #bodies
  -- Threads start at different offsets of the same cyclic sequence.
  index = (tonumber(args[3] or "0") or 0) % count
end

function request()
  index = index + 1
  if index > count then
    index = 1
  end
  if log then
    seq = seq + 1
    sent[seq] = now()
    return heads[index] .. (SEQ_BASE + seq) .. tails[index]
  end
  return requests[index]
end

function response(status, headers, body)
  local t = log and now()
  responses = responses + 1
  if status < 200 or status > 299 then
    bad_status = bad_status + 1
  elseif body:find('"isError":%s*true') or body:find('"error":%s*{') then
    bad_body = bad_body + 1
  end
  if log then
    local id = tonumber(body:match('"id":(%d+)'))
    local n = id and id - SEQ_BASE
    if n and sent[n] then
      log:write(string.format("%d %.6f %.6f\n", n, sent[n], t))
      sent[n] = nil
    end
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
