/* bindrace.h — the stable C ABI of the bindrace native HTTP/1.1 and WebSocket core.
 *
 * Shape: one br_app (config + routes, immutable once a loop runs) and one br_loop per thread.
 * A loop is driven by ONE call per iteration, br_loop_step: it applies the responses written for
 * the previous batch, flushes, waits for I/O, parses, answers static routes itself and returns
 * the requests that need the embedder (a batch). Static-only traffic never returns.
 * Request data are views into the loop's receive buffers, valid until the next br_loop_step.
 * WebSocket messages travel in the same batch (br_batch.ws), sends in br_batch.ws_arena.
 * Only opaque handles and plain C structs cross this boundary; C never keeps a caller pointer. */
#ifndef BINDRACE_H
#define BINDRACE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BR_MAX_PARAMS 8

typedef struct br_app br_app;       /* routes and limits shared by all loops */
typedef struct br_loop br_loop;     /* one epoll loop, one listener, one thread */
typedef struct br_body br_body;     /* immutable, refcounted body in C memory */
typedef struct br_stream br_stream; /* a response body written chunk by chunk from any thread */
struct br_ws_event;

/* Limits; a zero field takes the default given beside it. */
typedef struct br_config {
  uint32_t max_uri;           /* request-target bytes, else 414; 8192 */
  uint32_t max_header_bytes;  /* header section bytes, else 431; 16384 */
  uint32_t max_headers;       /* header fields, else 431; 64 */
  uint32_t header_timeout_ms; /* a started request's head must arrive within; 10000 */
  uint32_t idle_timeout_ms;   /* keep-alive idle and send-progress timeout; 60000 */
  uint32_t max_conns;         /* open connections over all loops; beyond: 503 and close; 10000 */
  uint32_t send_buffer;       /* per-connection bytes queued before backpressure; 262144 */
  uint32_t reserved;
  uint64_t max_body;          /* request body bytes, else 413; 1048576 */
} br_config;

typedef struct br_str { const char *p; size_t n; } br_str;
typedef struct br_header { br_str name, value; } br_header;

enum { BR_REQ_HTTP10 = 1, BR_REQ_CLOSE = 2, BR_REQ_HEAD = 4 };

/* One request handed to the embedder. */
typedef struct br_request {
  uint64_t conn;            /* connection id (stable, never reused while open) */
  uint32_t seq;             /* position in the connection's response order */
  uint32_t route;           /* route id given to br_app_route */
  uint32_t flags;           /* BR_REQ_* */
  uint32_t n_headers;
  uint32_t n_params;
  uint32_t method_id;       /* BR_METHOD_* */
  br_str method, path, query, body;
  const br_header *headers;
  br_str params[BR_MAX_PARAMS];
} br_request;

enum {
  BR_METHOD_OTHER, BR_METHOD_GET, BR_METHOD_HEAD, BR_METHOD_POST, BR_METHOD_PUT,
  BR_METHOD_DELETE, BR_METHOD_PATCH, BR_METHOD_OPTIONS, BR_METHOD_CONNECT, BR_METHOD_TRACE,
  BR_METHOD_COUNT
};

enum {
  BR_RES_DETACHED = 1, /* answered later with br_loop_complete; later responses wait */
  BR_RES_CLOSE = 2,    /* close the connection after this response */
  BR_RES_BODY = 4,     /* body is the shared br_body, not arena bytes */
  BR_RES_STREAM = 8    /* body comes from the br_stream */
};

/* The embedder's answer to batch request i, written into br_batch.resps[i]. head_* and body_*
 * are offsets into the batch arenas; head holds "name: value\r\n" lines only (the core adds
 * the status line, Date, Content-Length or Transfer-Encoding, Connection). */
typedef struct br_response {
  uint32_t status, flags;
  uint32_t head_off, head_len;
  uint32_t body_off, body_len;
  br_body *body;
  br_stream *stream;
} br_response;

/* Filled by br_loop_step; owned by the loop. */
enum { BR_YIELD_MS = 4 };

typedef struct br_batch {
  br_request *reqs;
  br_response *resps;
  uint32_t n;            /* requests in this batch */
  uint32_t n_wakes;
  const uint64_t *wakes; /* tokens of streams that can take data again (or died) */
  char *head_arena;      /* response header lines, written by the embedder */
  char *body_arena;      /* response bodies, written by the embedder */
  uint64_t head_cap, body_cap;
  uint32_t done;         /* 1: the loop stopped and every connection is closed */
  /* 1 at most every BR_YIELD_MS of the loop's clock: an embedder whose runtime takes a processor
   * away from a thread that has not rescheduled for a while (Go's sysmon, after 10 ms) yields
   * now, once, so its waits in br_loop_step keep their processor. */
  uint32_t yield;
  /* WebSocket: events read this step, and the embedder's sends for the next step. */
  const struct br_ws_event *ws;
  uint32_t n_ws;
  uint32_t ws_reserved;
  char *ws_arena;        /* br_ws_out records written by the embedder (see below) */
  uint64_t ws_cap;
  uint64_t ws_used;      /* bytes of records written; the embedder sets it before the next step */
  /* br_ws_send/br_ws_close calls the loop has applied so far. The records above are applied
   * first thing in the next step, before any posted call still waiting: an embedder that posted
   * calls not yet counted here must post this batch's sends too, to keep one order. */
  uint64_t ws_posted_applied;
} br_batch;

/* ---- WebSocket (RFC 6455) --------------------------------------------------------------------
 * A WebSocket route upgrades valid handshakes (GET, HTTP/1.1, Upgrade: websocket, Connection:
 * upgrade, Sec-WebSocket-Version: 13, a 16-byte base64 key) with 101; a wrong or missing version
 * gets 426 with Sec-WebSocket-Version: 13, any other bad handshake 400. From then on the
 * connection speaks frames: pings are answered, close frames echoed, protocol errors fail the
 * connection with a close code (1002, 1007, 1009), and the embedder gets OPEN, MESSAGE and
 * CLOSE events in the batch, in order, exactly one CLOSE per OPEN (1006 when the TCP
 * connection just went away). Messages are views valid until the next br_loop_step. */
typedef struct br_ws_config {
  uint64_t max_message;     /* bytes per message, else close 1009; 16 MiB */
  uint32_t idle_timeout_ms; /* no traffic for this long closes the connection; 120000 */
  uint32_t flags;           /* BR_WS_ECHO */
} br_ws_config;

enum { BR_WS_ECHO = 1 }; /* every message is echoed in C with its opcode; no events */
/* BUFFERED: code = the bytes queued for the client that its socket has not taken yet (saturating
 * at UINT32_MAX) and data.n = the payload bytes of the embedder's messages applied since the last
 * BUFFERED (data.p NULL). Sent after a flush when the backlog changed and either figure is
 * non-zero, or when a send flagged BR_WS_REPORT was applied: the embedder counts what it sent
 * as pending, and subtracts data.n. */
enum { BR_WS_OPEN = 1, BR_WS_MESSAGE = 2, BR_WS_CLOSE = 3, BR_WS_BUFFERED = 4 };
enum { BR_WS_TEXT = 1, BR_WS_BINARY = 2, BR_WS_OP_CLOSE = 8 };
enum { BR_WS_REPORT = 0x100 }; /* ORed into a send's opcode: answer with a BUFFERED event */

typedef struct br_ws_event {
  uint64_t conn;   /* connection id */
  uint32_t route;  /* route id given to br_app_ws */
  uint32_t kind;   /* BR_WS_OPEN, BR_WS_MESSAGE, BR_WS_CLOSE, BR_WS_BUFFERED */
  uint32_t code;   /* MESSAGE: BR_WS_TEXT or BR_WS_BINARY; CLOSE: the close code; BUFFERED: bytes */
  uint32_t reserved;
  br_str data;     /* OPEN: the upgrade request's head (request line and header lines, CRLF each,
                      then an empty line); MESSAGE: the payload; CLOSE: the reason */
} br_ws_event;

/* A send written by the embedder into br_batch.ws_arena during a batch: this header, then len
 * payload bytes, then padding to a multiple of 8. opcode BR_WS_TEXT/BR_WS_BINARY sends a
 * message; BR_WS_OP_CLOSE sends a close frame with code and the payload as reason, then closes
 * once the client answers (or the idle timeout passes). Sends to closed connections are dropped. */
typedef struct br_ws_out {
  uint64_t conn;
  uint32_t len;
  uint16_t opcode;
  uint16_t code;
} br_ws_out;

/* Routes GET pattern to WebSocket upgrades with the embedder's route_id (cfg NULL: defaults). */
int br_app_ws(br_app *app, const char *pattern, uint32_t route_id, const br_ws_config *cfg);
/* From any thread: sends a message (opcode BR_WS_TEXT/BINARY) on conn; data copied. */
void br_ws_send(br_loop *loop, uint64_t conn, uint32_t opcode, const void *data, size_t len);
/* From any thread: starts the close handshake on conn with code and reason (<= 123 bytes). */
void br_ws_close(br_loop *loop, uint64_t conn, uint32_t code, const void *reason, size_t len);

/* Creates an app with the given limits (NULL: defaults). */
br_app *br_app_new(const br_config *cfg);
/* Frees an app whose loops are all freed; flushes an instrumented build's profile. */
void br_app_free(br_app *app);
/* Routes method ("*" any) + pattern (e.g. "/a/:p/" + "*") to the embedder as route_id; 0 ok, -1 bad method or pattern, -2 taken. */
int br_app_route(br_app *app, const char *method, const char *pattern, uint32_t route_id);
/* Routes to a fixed response built once (body copied) and answered in C only; 0 ok, <0 as above. */
int br_app_static(br_app *app, const char *method, const char *pattern, uint32_t status,
                  const char *content_type, const void *body, size_t len);
/* Routes to a fixed response whose body is a shared br_body sent zero-copy; 0 ok, <0 as above. */
int br_app_static_body(br_app *app, const char *method, const char *pattern, uint32_t status,
                       const char *content_type, br_body *body);

/* Copies data once into C memory (data NULL: len bytes left for br_body_data); one reference. */
br_body *br_body_new(const void *data, size_t len);
/* The body's bytes, writable only until it is first routed or sent (then it is immutable). */
void *br_body_data(br_body *body);
/* Drops one reference; the body is freed when no response still sends it. */
void br_body_release(br_body *body);

/* Creates a loop listening on host:port with SO_REUSEPORT (port 0: ephemeral); NULL and *err=errno on failure.
   The app's first loop on a port fails with EADDRINUSE when another socket listens there. */
br_loop *br_loop_new(br_app *app, const char *host, int port, int *err);
/* The port the loop listens on. */
int br_loop_port(br_loop *loop);
enum { BR_IDLE = 1 };
/* Runs one iteration (see top); returns 0, or -1 on a fatal epoll error. Call from one thread
 * at a time. wait=1 blocks in epoll_wait until there is work (or a timer is due). wait=0 never
 * blocks: when nothing is ready it returns BR_IDLE and the embedder waits itself, in its own
 * poller, for br_loop_fd to be readable or br_loop_timer_ms to pass, then steps again (until then
 * br_loop_complete may run the loop's state from another thread; the next step waits for it). A runtime
 * with its own scheduler (Go) needs wait=0 while its other threads of work owe the loop answers:
 * a thread blocked inside a foreign call holds that runtime's processor, so the work (a database
 * client's replies) stalls behind the wait. */
int br_loop_step(br_loop *loop, br_batch *batch, int wait);
/* For an embedder that waits for the loop itself, in its own epoll_wait(br_loop_fd(loop),
 * br_loop_events(loop), BR_MAX_EVENTS, timeout) (Go: a raw system call, which keeps the runtime
 * from handing the thread's processor away): ready is what that wait returned (0 or less:
 * nothing, as after a timeout, or before the first wait). The step applies and flushes like
 * br_loop_step, handles those events instead of polling, and returns BR_IDLE at once when they
 * make no batch: the embedder's next wait is the poll. BR_ANSWERED instead says that the loop
 * answered requests of those events itself (static routes, errors): traffic that needs no
 * embedder, which a br_loop_step(wait=1) serves for less than a trip out of the core per
 * request. On io_uring the descriptor holds the ring alone, readable when completions are ready,
 * and the step reaps them. */
enum { BR_MAX_EVENTS = 512, BR_ANSWERED = 2 };
int br_loop_step_ready(br_loop *loop, br_batch *batch, int ready);
/* Where the embedder's own epoll_wait puts its events (BR_MAX_EVENTS of them; the loop's memory). */
void *br_loop_events(br_loop *loop);
/* The loop's epoll descriptor: readable when a socket, the listener or the inbox has work (on
   io_uring it holds the ring, readable when completions are ready). */
int br_loop_fd(br_loop *loop);
/* The loop's backend, chosen by BINDRACE_LOOP in br_loop_new: 0 epoll, 1 io_uring. */
int br_loop_backend(br_loop *loop);
/* An io_uring loop with deferred task work (docs/io_uring.md) posts completions only while the
 * thread that took its first step is inside io_uring_enter, and nothing that polls br_loop_fd
 * wakes for them. Every step must come from that one thread, and an embedder that waits for
 * the loop itself waits there instead, after a step that returned BR_IDLE:
 * io_uring_enter(fd, embed[0], embed[1], flags, arg, arg_size) until embed[1] completions or
 * timeout_ms (-ETIME), then a step (br_loop_step_ready with ready 1). embed is {0, 1} unless
 * the step left its sends for that enter to submit: {SQEs queued, sends + 1}. Fills *out and
 * returns 0 for such a loop, -1 for any other (epoll, or io_uring without deferral, whose
 * br_loop_fd is polled as before). The argument and embed live in the loop's memory. */
typedef struct {
  int fd;
  unsigned flags;
  const void *arg;
  size_t arg_size;
  const unsigned *embed;
} br_uring_wait;
int br_loop_uring_wait(br_loop *loop, int timeout_ms, br_uring_wait *out);
/* From any thread: what the last br_loop_new chose, or why it refused io_uring (a line of text). */
const char *br_loop_backend_note(void);
/* Milliseconds until the loop's next timeout sweep is due. */
int br_loop_timer_ms(br_loop *loop);
/* Grows the batch's head (which=0), body (which=1) or ws (which=2) arena to hold need more bytes past used; keeps contents. */
void br_loop_grow(br_loop *loop, br_batch *batch, int which, uint64_t used, uint64_t need);
/* From any thread: stop accepting, answer what was read, flush, close (force=1: close now). */
void br_loop_stop(br_loop *loop, int force);
/* Frees a loop after br_loop_step reported done (or before it ever ran). */
void br_loop_free(br_loop *loop);

/* Running totals of one loop's work since it started: how the load arrived, seen from the
   server (requests per read, reads per wake-up, requests per batch for the embedder). */
typedef struct {
  uint64_t wakeups;  /* epoll_wait calls that returned events */
  uint64_t reads;    /* recv calls that brought bytes */
  uint64_t requests; /* HTTP requests parsed */
  uint64_t sends;    /* sendmsg calls that wrote */
  uint64_t batches;  /* br_loop_step returns with work for the embedder */
} br_stats;
/* From any thread, while the loop runs: its totals so far. */
void br_loop_stats(br_loop *loop, br_stats *out);
/* From any thread: finishes a detached response (data copied); stream!=NULL starts a streamed body instead.
 * While the loop idles in the embedder's poller (br_loop_step returned BR_IDLE and was not called
 * again) and nothing posted before is still queued, the answer is applied and sent from the
 * calling thread and the loop is not woken for it; otherwise it is posted to the loop's inbox. */
void br_loop_complete(br_loop *loop, uint64_t conn, uint32_t seq, uint32_t status, uint32_t flags,
                      const void *head, size_t head_len, const void *body, size_t body_len,
                      br_body *shared, br_stream *stream);

/* From any thread: a stream for (conn, seq); content_length<0 means chunked; token names it in wakes. */
br_stream *br_stream_open(br_loop *loop, uint64_t token, int64_t content_length);
/* From any thread: queues a copy of data; 1 queued, 0 buffer full (token will be woken), -1 connection gone; force=1 never says full. */
int br_stream_write(br_stream *s, const void *data, size_t len, int force);
/* From any thread: ends the body and releases the caller's handle. */
void br_stream_close(br_stream *s);

/* Writes an instrumented build's .profraw now (no-op otherwise); Go exits without C atexit. */
void br_profile_flush(void);

#ifdef __cplusplus
}
#endif
#endif
