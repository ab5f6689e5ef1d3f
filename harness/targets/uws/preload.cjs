'use strict';
// bindrace's runtime preload for node targets: the harness starts node with `--require` on this
// file, so it runs before the user's server in the main thread and, because a Worker inherits
// process.execArgv, in every worker thread too. It reads the thread's own runtime figures and
// hands them to the harness; it adds no route, touches no request and keeps no timer, so the
// server under measurement is the user's alone.
//
// Transport: the harness names a private directory in BINDRACE_NODE_METRICS_DIR. Each thread
// listens there on a unix socket named after its threadId (0 is the main thread) and answers
// every connection with one JSON line of its cumulative figures, then closes it. The socket is
// unref'd: it never keeps a thread alive, and the loop wakes only when the harness connects
// (at a window's edges). The harness turns two such readings into a window's figures.

// The room in sockaddr_un's sun_path on Linux, less its terminating NUL.
const maxSocketPath = 107;

const dir = process.env.BINDRACE_NODE_METRICS_DIR;
if (dir) {
  try {
    start(dir);
  } catch (err) {
    // Whatever went wrong is the harness's loss, never the server's.
    process.stderr.write(`bindrace preload: ${err && err.message}; runtime figures not reported\n`);
  }
}

function start(dir) {
  const net = require('net');
  const path = require('path');
  const fs = require('fs');
  const v8 = require('v8');
  const { performance, PerformanceObserver } = require('perf_hooks');
  const { threadId } = require('worker_threads');

  // GC pauses as V8 reports them to perf_hooks: cumulative, as the other figures are, so a
  // reading the harness missed loses nothing.
  let gcCount = 0;
  let gcMs = 0;
  let gcObserved = true;
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        gcCount++;
        gcMs += e.duration;
      }
    }).observe({ entryTypes: ['gc'] });
  } catch (e) {
    gcObserved = false;
  }

  const figures = () => {
    const elu = performance.eventLoopUtilization();
    const heap = v8.getHeapStatistics();
    return {
      thread: threadId,
      elu_idle_ms: elu.idle,
      elu_active_ms: elu.active,
      heap_used_bytes: heap.used_heap_size,
      heap_total_bytes: heap.total_heap_size,
      gc_observed: gcObserved,
      gc_count: gcCount,
      gc_ms: gcMs,
    };
  };

  const sock = path.join(dir, threadId + '.sock');
  // Said once, on stderr and, where the directory exists, in a file the harness reads as the
  // reason the figures are missing; the server itself carries on untouched.
  const giveUp = (err) => {
    const why = `cannot listen on ${sock}: ${err.message}`;
    process.stderr.write(`bindrace preload (thread ${threadId}): ${why}; runtime figures not reported\n`);
    try {
      fs.writeFileSync(path.join(dir, threadId + '.err'), why + '\n');
    } catch {
      // The directory itself is missing: the harness finds neither socket nor reason and says so.
    }
  };
  // A unix socket's path holds at most 107 bytes, and this Node's libuv cuts a longer one short
  // without a word, which would listen somewhere else entirely: refuse it here instead.
  if (Buffer.byteLength(sock) > maxSocketPath) {
    giveUp(new Error(`the path is longer than ${maxSocketPath} bytes`));
    return;
  }
  const server = net.createServer((conn) => {
    conn.on('error', () => {}); // a harness that hung up early is not the server's problem
    conn.end(JSON.stringify(figures()) + '\n');
  });
  server.on('error', giveUp);
  try {
    server.listen(sock);
  } catch (err) {
    giveUp(err);
    return;
  }
  server.unref();
}
