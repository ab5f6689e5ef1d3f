'use strict';
// A bindrace scenario server written with hyper-express (a third-party framework on npm that
// runs on uWebSockets.js), for racing against the pinned upstream the way the `uws` target
// does: `bin/bindrace verify --target "cmd:node examples/hyper-express/server.js --port {port}"`.
//
// It serves the contract of harness/targets/uws/server.ts with hyper-express's own API
// (Server, Request, Response, Websocket): ping, params, json, stream (/video), ws-echo, the
// background routes, the info route and a 404 for everything else. The database routes are
// not served. One thread: hyper-express runs one uWebSockets.js app on Node's main thread.
//
// uWebSockets.js here is the pinned upstream itself (package.json "overrides" aliases the
// framework's dependency to @trufflesuite/uws-js-unofficial 20.30.0-unofficial.0).

const path = require('path');

const fail = (msg) => {
  process.stderr.write(`hyper-express server: ${msg}\n`);
  process.exit(2);
};

// --port N, --port=N or $PORT.
const portArg = () => {
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--port') return argv[i + 1];
    if (argv[i].startsWith('--port=')) return argv[i].slice('--port='.length);
  }
  return process.env.PORT;
};
const portText = portArg();
const port = Number(portText);
if (!/^[0-9]+$/.test(String(portText)) || port <= 0 || port > 65535) {
  fail(`--port or PORT must be a TCP port, got ${JSON.stringify(portText)}`);
}
const host = process.env.BINDRACE_LISTEN_HOST || '127.0.0.1';

// The pinned package's main module falls back silently to a pure-Node implementation when its
// native addon does not load (wrong Node ABI, glibc); racing that would not be racing
// uWebSockets.js. Load the addon by its own file first: a mismatch is a hard error here, and
// the main module's require of the same file then gets this very instance from the cache.
delete process.env.UWS_USE_FALLBACK;
const uwsDir = path.dirname(require.resolve('uWebSockets.js/package.json'));
const uwsVersion = require('uWebSockets.js/package.json').version;
try {
  require(path.join(uwsDir, 'binaries', `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`));
} catch (e) {
  fail(`the uWebSockets.js addon does not load on node ${process.version}: ${e.message}`);
}

const HyperExpress = require('hyper-express');
const { Readable } = require('stream');
const hyperExpressVersion = require('hyper-express/package.json').version;

// The scenario contract's constants (harness/scenario/scenario.go; server.ts gets them from
// the bundler, a plain JS file keeps its own copy).
const INFO_PATH = '/__bindrace/info';
const BENCH_HEADER = 'x-bench';
const VIDEO_SIZE = 14 << 20;
const WS_PATH = '/ws';
const WS_MAX_MESSAGE = 16 << 20;
const BACKGROUND_ROUTES = [
  ['GET', '/api/v1/users'],
  ['GET', '/api/v1/users/:id'],
  ['POST', '/api/v1/users'],
  ['PUT', '/api/v1/users/:id'],
  ['DELETE', '/api/v1/users/:id'],
  ['GET', '/api/v1/users/:id/posts'],
  ['GET', '/api/v1/posts/:post/comments/:comment'],
  ['GET', '/api/v1/search'],
  ['GET', '/static/*'],
  ['GET', '/health'],
  ['GET', '/metrics'],
  ['GET', '/about'],
  ['GET', '/contact'],
  ['POST', '/login'],
  ['POST', '/logout'],
  ['GET', '/id/:id/profile'],
  ['GET', '/json/schema'],
  ['PATCH', '/api/v1/settings'],
  ['GET', '/v/:version/docs/*'],
  ['GET', INFO_PATH],
];

// The stream scenario's body, the same bytes as scenario.VideoByte: byte(i*7 + i/4093).
const video = Buffer.allocUnsafe(VIDEO_SIZE);
for (let i = 0; i < video.length; i++) {
  video[i] = (i * 7 + Math.floor(i / 4093)) & 0xff;
}

const server = new HyperExpress.Server({
  auto_close: false, // SIGTERM is handled below, the way the harness stops a server
  max_body_length: WS_MAX_MESSAGE,
});

// ping
server.get('/', (request, response) => {
  response.header('content-type', 'text/plain').send('hi');
});

// params: path parameter, query parameter, a request header read (not echoed).
server.get('/id/:id', (request, response) => {
  const id = request.path_parameters.id;
  const name = request.query_parameters.name ?? '';
  void request.headers[BENCH_HEADER];
  response.header('content-type', 'text/plain').header('x-powered-by', 'benchmark').send(id + ' ' + name);
});

// json: the body parsed and sent back re-serialized; a body that is not JSON is a 400.
server.post('/json', async (request, response) => {
  let body;
  try {
    body = await request.json(null); // null: reject on invalid JSON instead of defaulting
  } catch {
    response.status(400).header('content-type', 'text/plain').send('invalid json');
    return;
  }
  response.json(body);
});

// stream: 14 MiB with a Content-Length; hyper-express writes it with uWS tryEnd and resumes
// from the offset the socket stopped at whenever it drains, so the body is never copied.
server.get('/video', (request, response) => {
  response.header('content-type', 'video/mp4');
  response.stream(Readable.from([video]), video.length).catch(() => {});
});

// ws-echo: every message back with its own opcode.
server.ws(
  WS_PATH,
  {
    message_type: 'ArrayBuffer', // no copy: sent back within the callback that owns it
    compression: HyperExpress.compressors.DISABLED,
    idle_timeout: 120,
    max_payload_length: WS_MAX_MESSAGE,
    max_backpressure: WS_MAX_MESSAGE,
  },
  (ws) => {
    ws.on('message', (message, isBinary) => ws.send(message, isBinary));
  }
);

// The info route: heap in use and threads, read by the harness outside measurement windows.
server.get(INFO_PATH, (request, response) => {
  response.json({
    heap_bytes: process.memoryUsage().heapUsed,
    threads: 1,
    thread: 0,
    pid: process.pid,
    runtime: 'node',
    node: process.version,
    framework: `hyper-express ${hyperExpressVersion}`,
    uws: uwsVersion,
  });
});

// Background routes: registered, never requested during a measurement.
const background = (request, response) => {
  response.header('content-type', 'text/plain').send('background');
};
for (const [method, pattern] of BACKGROUND_ROUTES) {
  if (pattern === INFO_PATH) continue;
  switch (method) {
    case 'GET': server.get(pattern, background); break;
    case 'POST': server.post(pattern, background); break;
    case 'PUT': server.put(pattern, background); break;
    case 'DELETE': server.delete(pattern, background); break;
    case 'PATCH': server.patch(pattern, background); break;
    default: server.any(pattern, background);
  }
}

server.set_not_found_handler((request, response) => {
  response.status(404).header('content-type', 'text/plain').send('not found');
});

server.set_error_handler((request, response, error) => {
  process.stderr.write(`hyper-express server: ${error && error.stack ? error.stack : error}\n`);
  if (!response.completed) response.status(500).header('content-type', 'text/plain').send('internal error');
});

server
  .listen(port, host)
  .then(() => {
    const stop = () => {
      server.close();
      process.exit(0);
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  })
  .catch((e) => fail(`cannot listen on ${host}:${port}: ${e}`));
