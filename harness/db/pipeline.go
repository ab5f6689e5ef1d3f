package db

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// A lane is one connection of a Queries pool and the queries waiting for it.
//
// Queries pipeline: the caller that finds its lane idle leads. It sends every query queued on
// the lane as one pipeline, each followed by its own Sync (so each is its own transaction, and
// an error ends only its query), reads the answers in order, hands each to its caller, and
// passes the lead to the first query queued meanwhile. With more requests in flight than
// connections, PostgreSQL then reads and answers several queries a wake-up instead of one:
// at 100 client connections over 10 database ones, one query a round trip cost PostgreSQL up to
// 1.75 times the CPU per response that the uws target's client (which pipelines up to 100
// queries a connection) cost it (docs/database.md, "Pipelined queries").
type lane struct {
	pool *pgxpool.Pool // opens the lane's connection, and a new one after it broke

	mu     sync.Mutex
	busy   bool    // a leader is at work (or has been handed the lead)
	closed bool    // Queries.Close: no more queries, and the connection goes back
	queue  []*call // waiting for the next pipeline; its first leads it
	spare  []*call // the last pipeline's slice, reused for the next queue

	load      atomic.Int32  // queries queued or in flight, for pick
	pipelines atomic.Uint64 // sent, and the queries in them: Queries.Pipelined
	queries   atomic.Uint64

	// The leader's alone.
	conn *pgxpool.Conn                                 // nil until opened, and after it broke
	sds  [len(Statements)]*pgconn.StatementDescription // conn's, in Statements' order
}

// call is one query on a lane: its statement and text parameters, the function its rows go to
// (called by whichever caller leads, while this one waits), and its outcome.
type call struct {
	stmt   int
	params [][]byte
	row    func([][]byte)
	err    error
	lead   bool          // woken to lead the next pipeline rather than with an answer
	done   chan struct{} // one wake-up: the answer, or the lead
}

var calls = sync.Pool{New: func() any { return &call{done: make(chan struct{}, 1)} }}

var errClosed = errors.New("database queries closed")

// pick is the lane for the next query: the first idle one, else the least loaded. Always
// looking from the first keeps a light load on few connections, as pgxpool's most recently
// used connection did: the backends that serve stay warm, the others sleep, where spreading
// the queries over all of them cost PostgreSQL more CPU per query.
func (q *Queries) pick() *lane {
	best, bestLoad := &q.lanes[0], int32(-1)
	for i := range q.lanes {
		ln := &q.lanes[i]
		load := ln.load.Load()
		if load == 0 {
			return ln
		}
		if bestLoad < 0 || load < bestLoad {
			best, bestLoad = ln, load
		}
	}
	return best
}

// Pipelined is how many pipelines the lanes have sent so far, and the queries in them.
func (q *Queries) Pipelined() (pipelines, queries uint64) {
	for i := range q.lanes {
		pipelines += q.lanes[i].pipelines.Load()
		queries += q.lanes[i].queries.Load()
	}
	return pipelines, queries
}

// exec runs Statements[stmt] with text parameters and calls row for every row, whose values
// are valid only during the call. It returns once its query is answered; ctx bounds the
// pipelines this caller leads (a queued query waits for its leader's, at most QueryTimeout).
func (q *Queries) exec(ctx context.Context, stmt int, params [][]byte, row func([][]byte)) error {
	c := calls.Get().(*call)
	c.stmt, c.params, c.row, c.err, c.lead = stmt, params, row, nil, false
	ln := q.pick()
	ln.mu.Lock()
	if ln.closed {
		ln.mu.Unlock()
		calls.Put(c)
		return errClosed
	}
	ln.load.Add(1)
	ln.queue = append(ln.queue, c)
	lead := !ln.busy
	ln.busy = true
	ln.mu.Unlock()
	if !lead {
		<-c.done
		lead = c.lead
	}
	if lead {
		ln.lead(ctx)
	}
	err := c.err
	c.params, c.row = nil, nil
	calls.Put(c)
	return err
}

// lead runs one pipeline of everything queued on ln (the leader's own query first), wakes its
// callers, and hands the lead to the first query queued since, or leaves the lane idle.
func (ln *lane) lead(ctx context.Context) {
	ln.mu.Lock()
	batch := ln.queue
	ln.queue = ln.spare[:0]
	ln.mu.Unlock()

	ln.run(ctx, batch)
	// Answered: the lane counts as idle for pick before its callers wake and send more.
	ln.load.Add(-int32(len(batch)))
	for _, c := range batch[1:] {
		c.done <- struct{}{}
	}

	ln.mu.Lock()
	clear(batch)
	ln.spare = batch[:0]
	var next *call
	if len(ln.queue) > 0 {
		next = ln.queue[0]
	} else {
		ln.busy = false
		if ln.closed {
			ln.release()
		}
	}
	ln.mu.Unlock()
	if next != nil {
		next.lead = true
		next.done <- struct{}{}
	}
}

// run sends batch as one pipeline on the lane's connection and reads its answers, setting each
// call's err. A connection that broke is given back to the pool, and the next pipeline opens
// another.
func (ln *lane) run(ctx context.Context, batch []*call) {
	if err := ln.open(ctx); err != nil {
		for _, c := range batch {
			c.err = err
		}
		return
	}
	ln.pipelines.Add(1)
	ln.queries.Add(uint64(len(batch)))
	p := ln.conn.Conn().PgConn().StartPipeline(ctx)
	for _, c := range batch {
		p.SendQueryStatement(ln.sds[c.stmt], c.params, nil, nil)
		p.SendPipelineSync()
	}
	broken := p.Flush()
	for _, c := range batch {
		if broken != nil {
			c.err = broken
			continue
		}
		c.err, broken = readAnswer(p, c.row)
	}
	if err := p.Close(); broken == nil && !onlyQuery(err) {
		broken = err
	}
	if broken != nil || ln.conn.Conn().IsClosed() {
		ln.release()
	}
}

// readAnswer reads one query's results up to its Sync, giving its rows to row. qerr is the query's
// error; broken, one that ended the connection (then qerr is it too).
func readAnswer(p *pgconn.Pipeline, row func([][]byte)) (qerr, broken error) {
	for {
		res, err := p.GetResults()
		if err != nil {
			if !onlyQuery(err) {
				return err, err
			}
			qerr = firstErr(qerr, err) // the rest of the query is skipped up to its Sync
			continue
		}
		switch r := res.(type) {
		case *pgconn.ResultReader:
			for r.NextRow() {
				row(r.Values())
			}
			if _, err := r.Close(); err != nil {
				if !onlyQuery(err) {
					return err, err
				}
				qerr = firstErr(qerr, err)
			}
		case *pgconn.PipelineSync:
			return qerr, nil
		default:
			err := errors.New("database pipeline: the answers ended before the query's Sync")
			return err, err
		}
	}
}

// firstErr is the first of two errors that is not nil.
func firstErr(first, next error) error {
	if first != nil {
		return first
	}
	return next
}

// onlyQuery says err (or its absence) leaves the connection usable: nil, or the server's error
// for one query.
func onlyQuery(err error) bool {
	var pe *pgconn.PgError
	return err == nil || errors.As(err, &pe)
}

// open gives the lane a connection if it has none: the pool's (statements prepared by its
// AfterConnect), with the statements' descriptions looked up in its cache.
func (ln *lane) open(ctx context.Context) error {
	if ln.conn != nil {
		return nil
	}
	c, err := ln.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	for i, st := range Statements {
		sd, err := c.Conn().Prepare(ctx, st.Name, st.SQL) // prepared in AfterConnect: a lookup
		if err != nil {
			c.Release()
			return err
		}
		ln.sds[i] = sd
	}
	ln.conn = c
	return nil
}

// release gives the lane's connection back to the pool, which closes it if it broke.
func (ln *lane) release() {
	if ln.conn != nil {
		ln.conn.Release()
		ln.conn = nil
	}
}

// close stops ln taking queries; its connection goes back now if it is idle, else when its
// leader is done.
func (ln *lane) close() {
	ln.mu.Lock()
	ln.closed = true
	if !ln.busy {
		ln.release()
	}
	ln.mu.Unlock()
}
