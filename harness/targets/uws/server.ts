// The scenario server of the `uws` target: the pinned upstream uWebSockets.js serving every
// bindrace scenario the way the Go targets do (see harness/scenario).
//
// The harness bundles this file with esbuild's Go API at run time and runs it with node, NODE_PATH
// pointing at harness/targets/uws/node_modules. esbuild strips the types and does not check them,
// so the few types used here are declared locally instead of pulling in typescript/@types.
//
// Constants below are injected by the bundler (esbuild "define") from harness/scenario, so the
// background routes and the video size have one source of truth.

declare const BINDRACE_BACKGROUND_ROUTES: [string, string][]; // [method, pattern]
declare const BINDRACE_VIDEO_SIZE: number;
declare const BINDRACE_INFO_PATH: string;
declare const BINDRACE_BENCH_HEADER: string;
declare const BINDRACE_UPSTREAM: string;
declare const BINDRACE_WS_PATH: string;
declare const BINDRACE_WS_MAX_MESSAGE: number;

import { addDBRoutes } from './db';

declare const process: any;
declare const require: (id: string) => any;
declare const Buffer: any;
declare const __filename: string;

type Body = string | Uint8Array | ArrayBuffer;

interface HttpResponse {
  writeStatus(status: string): HttpResponse;
  writeHeader(key: string, value: string): HttpResponse;
  end(body?: Body): HttpResponse;
  tryEnd(chunk: Body, totalSize: number): [boolean, boolean];
  getWriteOffset(): number;
  onWritable(handler: (offset: number) => boolean): HttpResponse;
  onAborted(handler: () => void): HttpResponse;
  onData(handler: (chunk: ArrayBuffer, isLast: boolean) => void): HttpResponse;
  cork(cb: () => void): HttpResponse;
}

interface HttpRequest {
  getHeader(lowerCaseKey: string): string;
  getParameter(index: number): string;
  getQuery(key: string): string | undefined;
}

type Handler = (res: HttpResponse, req: HttpRequest) => void;

interface WebSocket {
  send(message: ArrayBuffer, isBinary?: boolean, compress?: boolean): number;
}

interface WebSocketBehavior {
  compression?: number;
  maxPayloadLength?: number;
  idleTimeout?: number;
  maxBackpressure?: number;
  closeOnBackpressureLimit?: number;
  sendPingsAutomatically?: boolean;
  message?: (ws: WebSocket, message: ArrayBuffer, isBinary: boolean) => void;
}

interface App {
  get(pattern: string, h: Handler): App;
  post(pattern: string, h: Handler): App;
  put(pattern: string, h: Handler): App;
  del(pattern: string, h: Handler): App;
  patch(pattern: string, h: Handler): App;
  any(pattern: string, h: Handler): App;
  ws(pattern: string, behavior: WebSocketBehavior): App;
  listen(host: string, port: number, options: number, cb: (listenSocket: unknown) => void): App;
}

interface UWS {
  App(): App;
  us_listen_socket_close(listenSocket: unknown): void;
  LIBUS_LISTEN_EXCLUSIVE_PORT: number;
}

interface WorkerThreads {
  isMainThread: boolean;
  workerData: { index: number; heaps: SharedArrayBuffer } | null;
  Worker: new (file: string, opts: { workerData: unknown }) => {
    on(ev: 'message', cb: (m: string) => void): void;
    on(ev: 'error', cb: (e: Error) => void): void;
    on(ev: 'exit', cb: (code: number) => void): void;
  };
  parentPort: { postMessage(m: string): void; on(ev: 'message', cb: (m: string) => void): void; unref(): void } | null;
}

// The package's main module silently falls back to a pure-Node implementation when the native
// addon does not load; racing that would compare against something that is not the upstream.
// Requiring the addon itself makes a mismatch (wrong Node ABI, wrong glibc) a hard error.
const addon = `${BINDRACE_UPSTREAM}/binaries/uws_${process.platform}_${process.arch}_${process.versions.modules}.node`;
const uWS: UWS = require(addon);

const port = Number(process.env.PORT);
if (!Number.isInteger(port) || port <= 0 || port > 65535) {
  process.stderr.write(`uws server: PORT must be a TCP port, got ${JSON.stringify(process.env.PORT)}\n`);
  process.exit(2);
}
// THREADS apps, one per thread, as the Go targets get THREADS event loops or GOMAXPROCS: the
// main thread's own and THREADS-1 Node worker threads, all listening on the port (SO_REUSEPORT
// among themselves, the kernel spreading connections over them).
// The address to listen on: loopback unless the harness asks for another (a remote race's
// server host), as the Go targets.
const host: string = process.env.BINDRACE_LISTEN_HOST || '127.0.0.1';
const threads = Number(process.env.THREADS || '1');
if (!Number.isInteger(threads) || threads < 1 || threads > 256) {
  process.stderr.write(`uws server: THREADS must be 1-256, got ${JSON.stringify(process.env.THREADS)}\n`);
  process.exit(2);
}
const wt: WorkerThreads = require('worker_threads');
const index = wt.isMainThread ? 0 : wt.workerData!.index;
// Each thread's V8 heap in use, one slot per thread, shared: the info route sums them.
const heaps = new Float64Array(wt.isMainThread ? new SharedArrayBuffer(8 * threads) : wt.workerData!.heaps);
const noteHeap = () => {
  heaps[index] = process.memoryUsage().heapUsed;
};
noteHeap();
setInterval(noteHeap, 1000).unref();

// Same bytes as scenario.VideoByte: byte(i*7 + i/4093), built once at start-up.
const video = Buffer.allocUnsafe(BINDRACE_VIDEO_SIZE) as Uint8Array;
for (let i = 0; i < video.length; i++) {
  video[i] = (i * 7 + Math.floor(i / 4093)) & 0xff;
}

const app = uWS.App();

app.get('/', (res) => {
  res.writeHeader('content-type', 'text/plain').end('hi');
});

app.get('/id/:id', (res, req) => {
  const id = req.getParameter(0);
  const name = req.getQuery('name') ?? '';
  // Read dynamically like the other targets; the value is not echoed.
  req.getHeader(BINDRACE_BENCH_HEADER);
  res.writeHeader('content-type', 'text/plain').writeHeader('x-powered-by', 'benchmark').end(id + ' ' + name);
});

app.post('/json', (res) => {
  let aborted = false;
  let chunks: Uint8Array[] = [];
  res.onAborted(() => {
    aborted = true;
  });
  res.onData((chunk, isLast) => {
    if (!isLast) {
      // The ArrayBuffer is only valid during this callback: copy it.
      chunks.push(Buffer.from(Buffer.from(chunk)));
      return;
    }
    if (aborted) return;
    const body = chunks.length === 0 ? Buffer.from(chunk) : Buffer.concat([...chunks, Buffer.from(chunk)]);
    chunks = [];
    let out: string;
    try {
      out = JSON.stringify(JSON.parse(body.toString()));
    } catch {
      res.cork(() => {
        res.writeStatus('400 Bad Request').writeHeader('content-type', 'text/plain').end('invalid json');
      });
      return;
    }
    res.cork(() => {
      res.writeHeader('content-type', 'application/json').end(out);
    });
  });
});

app.get('/video', (res) => {
  let aborted = false;
  res.onAborted(() => {
    aborted = true;
  });
  res.writeHeader('content-type', 'video/mp4');
  // Offsets reported to onWritable count from here; slicing relative to it resumes exactly where
  // the socket stopped taking bytes, so the body is never copied or buffered whole.
  const base = res.getWriteOffset();
  const [ok, done] = res.tryEnd(video, video.length);
  if (ok || done) return;
  res.onWritable((offset) => {
    if (aborted) return true;
    let wrote = false;
    res.cork(() => {
      [wrote] = res.tryEnd(video.subarray(offset - base), video.length);
    });
    return wrote;
  });
});

// ws-echo: every message back with its own opcode (isBinary), on the upstream's own WebSocket
// support. The Go targets (harness/targets/ws.go) are configured to match: pings answered,
// close handshake completed and invalid UTF-8 text refused by the upstream itself.
app.ws(BINDRACE_WS_PATH, {
  compression: 0, // uWS.DISABLED: permessage-deflate off, as on the Go targets
  maxPayloadLength: BINDRACE_WS_MAX_MESSAGE, // 16 MiB, scenario.WSMaxMessage
  idleTimeout: 120, // seconds without a message from the client; the Go targets use the same
  sendPingsAutomatically: false, // the Go targets send no pings of their own either
  // The Go targets never drop an echo: a send blocks until the client reads. uWS instead drops
  // a send once this much is buffered; closing there makes such a client's failure visible
  // rather than silently losing echoes. A closed-loop client never gets near it.
  maxBackpressure: BINDRACE_WS_MAX_MESSAGE,
  closeOnBackpressureLimit: 1,
  message: (ws, msg, isBinary) => {
    ws.send(msg, isBinary);
  },
});

addDBRoutes(app, threads);

app.get(BINDRACE_INFO_PATH, (res) => {
  noteHeap();
  let heap = 0;
  for (const h of heaps) heap += h;
  // thread: which app answered, so a test can see every one of them serving.
  res.writeHeader('content-type', 'application/json').end(JSON.stringify({ heap_bytes: heap, threads, thread: index }));
});

const background: Handler = (res) => {
  res.writeHeader('content-type', 'text/plain').end('background');
};
for (const [method, pattern] of BINDRACE_BACKGROUND_ROUTES) {
  if (pattern === BINDRACE_INFO_PATH) continue;
  switch (method) {
    case 'GET': app.get(pattern, background); break;
    case 'POST': app.post(pattern, background); break;
    case 'PUT': app.put(pattern, background); break;
    case 'DELETE': app.del(pattern, background); break;
    case 'PATCH': app.patch(pattern, background); break;
    default: app.any(pattern, background);
  }
}

app.any('/*', (res) => {
  res.writeStatus('404 Not Found').writeHeader('content-type', 'text/plain').end('not found');
});

const fail = (msg: string) => {
  process.stderr.write(`uws server: ${msg}\n`);
  process.exit(2);
};

// One thread: listen exclusively (without it uSockets sets SO_REUSEPORT and would share a port
// with another server). Several: the main thread first checks the port is free with an exclusive
// listen, then every app joins one SO_REUSEPORT group; the main thread's app listens last, after
// every worker's, so the first answer the harness gets means all apps are serving.
const listen = (options: number, then: (listenSocket: unknown) => void) =>
  app.listen(host, port, options, (listenSocket) => {
    if (!listenSocket) fail(`port ${port} on ${host} is in use (or cannot be bound)`);
    then(listenSocket);
  });

type Worker = InstanceType<WorkerThreads['Worker']> & { postMessage(m: string): void };
const workers: Worker[] = [];
let stopping = false;

// SIGTERM: every app closes its listen socket. A worker whose loop then has nothing left ends by
// itself (tearing one down with sockets still open aborts node); the process exits once all
// have, or after a grace period.
const serveUntilSignal = (listenSocket: unknown) => {
  const stop = () => {
    if (stopping) return;
    stopping = true;
    uWS.us_listen_socket_close(listenSocket);
    let running = workers.length;
    if (running === 0) process.exit(0);
    for (const w of workers) {
      w.on('exit', () => --running === 0 && process.exit(0));
      w.postMessage('stop');
    }
    setTimeout(() => process.exit(0), 3000).unref();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
};

if (!wt.isMainThread) {
  listen(0, (listenSocket) => {
    const parent = wt.parentPort!;
    parent.on('message', () => uWS.us_listen_socket_close(listenSocket));
    parent.unref(); // the port alone must not keep this thread alive once its app is closed
    parent.postMessage('listening');
  });
} else if (threads === 1) {
  listen(uWS.LIBUS_LISTEN_EXCLUSIVE_PORT, serveUntilSignal);
} else {
  listen(uWS.LIBUS_LISTEN_EXCLUSIVE_PORT, (probe) => {
    uWS.us_listen_socket_close(probe);
    let waiting = threads - 1;
    for (let i = 1; i < threads; i++) {
      const w = new wt.Worker(__filename, { workerData: { index: i, heaps: heaps.buffer } }) as Worker;
      workers.push(w);
      w.on('error', (e) => fail(`worker thread ${i}: ${e.message}`));
      w.on('exit', (code) => stopping || fail(`worker thread ${i} exited (${code})`));
      w.on('message', () => {
        if (--waiting === 0) listen(0, serveUntilSignal);
      });
    }
  });
}
