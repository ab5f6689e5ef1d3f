package engine

import "context"

// protocol is what the engine speaks, as wrk's socket handlers are what its connections
// speak: everything about the bytes, nothing about connections, time or counting.
type protocol interface {
	// probe makes one blocking exchange with the target before the run: a target that is
	// not there is one clear error (wrapping errConnect, or errHandshake).
	probe(ctx context.Context, cfg Config) error
	// sessions makes the per-connection state of one worker's n connections.
	sessions(n int) []session
	// lost says what Count mode lost, for the error: "3 of 100 requests got no response".
	lost(lost, count int64) string
}

// sessionsOf hands out the elements of ss (allocated together, one per connection) as sessions.
func sessionsOf[S any, P interface {
	*S
	session
}](ss []S) []session {
	out := make([]session, len(ss))
	for i := range ss {
		out[i] = P(&ss[i])
	}
	return out
}

// session is one connection's protocol state; the worker that owns the connection is the only
// goroutine touching it.
type session interface {
	// open starts a freshly connected socket: true if requests may go now, false if the
	// protocol first exchanges something (the WebSocket upgrade): consume then sees the
	// answer in state csSetup and sets csOpen when it is done.
	open(w *worker, c *conn, now int64) bool
	// batch renders the next n requests (n at most Pipelining), for the connection's ring
	// slots from first on (mod Pipelining), as one write; the slice stays the session's.
	batch(first, n int) []byte
	// consume handles data that arrived at t: it calls w.answer for every complete answer, in
	// order, and may fail or close c. It returns how many bytes at the end of data it could
	// not use yet: the engine puts them in front of the next read (at most maxCarry).
	consume(w *worker, c *conn, data []byte, t int64) (rest int)
	// eof handles the server closing the connection.
	eof(w *worker, c *conn, t int64)
	// goodbye is what ends an open connection cleanly at the end of a run (a WebSocket close
	// frame), nil if closing the socket is enough.
	goodbye() []byte
	// reset forgets everything about the connection's last socket.
	reset()
}
