package db

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Single-process sanity benchmarks of the scenario queries at scale 0.01 on the shared test
// cluster, ten goroutines over a pool of ten like a target under load, keys uniform:
//
//	go test -run '^$' -bench 'Get|List|Total|Create' ./harness/db/
//
// and of the template itself (seed, reset, size) at scales 0.01 and 1:
//
//	go test -run '^$' -bench Seed -benchtime 1x -timeout 30m ./harness/db/

var bench struct {
	once  sync.Once
	store *Store
	q     *Queries
	err   error
}

func benchQueries(b *testing.B) (*Store, *Queries) {
	b.Helper()
	c := testCluster(b)
	bench.once.Do(func() {
		ctx := context.Background()
		bench.store, bench.err = Open(ctx, Options{URL: c.URL("postgres"), Database: "bb_trial", Template: "bb_template", Scale: 0.01})
		if bench.err != nil {
			return
		}
		if _, bench.err = bench.store.Reset(ctx); bench.err != nil {
			return
		}
		bench.q, bench.err = NewQueries(ctx, bench.store.URL(), PoolOptions{})
	})
	if bench.err != nil {
		b.Fatal(bench.err)
	}
	return bench.store, bench.q
}

func benchScenario(b *testing.B, maxKey func(Sizes) int64, run func(q *Queries, dst []byte, key int64) ([]byte, error)) {
	s, q := benchQueries(b)
	keys, err := NewKeys(KeyOptions{Min: 1, Max: maxKey(s.Dataset.Sizes), Seed: DefaultSeed})
	if err != nil {
		b.Fatal(err)
	}
	var next atomic.Uint64
	b.SetParallelism(max(1, DefaultPoolSize/runtime.GOMAXPROCS(0))) // as many goroutines as connections
	b.ReportAllocs()
	p0, q0 := q.Pipelined()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		var buf []byte
		var err error
		for pb.Next() {
			buf, err = run(q, buf[:0], keys.At(next.Add(1)))
			if err != nil {
				b.Errorf("%v", err)
				return
			}
		}
	})
	if p1, q1 := q.Pipelined(); p1 > p0 {
		b.ReportMetric(float64(q1-q0)/float64(p1-p0), "queries/pipeline")
	}
}

func BenchmarkGetUser(b *testing.B) {
	benchScenario(b, func(s Sizes) int64 { return s.Users }, func(q *Queries, dst []byte, k int64) ([]byte, error) {
		return q.AppendUser(context.Background(), dst, k)
	})
}

func BenchmarkListOrders(b *testing.B) {
	benchScenario(b, func(s Sizes) int64 { return s.Users }, func(q *Queries, dst []byte, k int64) ([]byte, error) {
		return q.AppendUserOrders(context.Background(), dst, k)
	})
}

func BenchmarkOrderTotal(b *testing.B) {
	benchScenario(b, func(s Sizes) int64 { return s.Orders }, func(q *Queries, dst []byte, k int64) ([]byte, error) {
		return q.AppendOrderTotal(context.Background(), dst, k)
	})
}

func BenchmarkCreateOrder(b *testing.B) {
	benchScenario(b, func(s Sizes) int64 { return s.Users }, func(q *Queries, dst []byte, k int64) ([]byte, error) {
		return q.AppendCreateOrder(context.Background(), dst, CreateOrder{UserID: k, Items: []OrderLine{
			{SKU: "SKU-00042", Qty: 2, PriceCents: 1999}, {SKU: "SKU-00007", Qty: 1, PriceCents: 250}, {SKU: "SKU-01234", Qty: 3, PriceCents: 99},
		}})
	})
}

// BenchmarkSeed builds a template from nothing per iteration (ns/op is the seed time) and
// reports what a trial's reset costs (the median of 5 clones) and the template's size on disk.
// Everything is dropped at the end: scale 1 takes about half a gigabyte.
func BenchmarkSeed(b *testing.B) {
	for _, scale := range []float64{0.01, 1} {
		b.Run("scale="+strconv.FormatFloat(scale, 'g', -1, 64), func(b *testing.B) {
			c := testCluster(b)
			ctx := context.Background()
			o := Options{URL: c.URL("postgres"), Database: "bb_seed_trial", Template: "bb_seed_template", Scale: scale}
			if testing.Verbose() {
				o.Progress = os.Stderr
			}
			var s *Store
			var seed time.Duration
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				if s != nil {
					s.Destroy(ctx)
					s.Close()
				}
				// Drop whatever an earlier run left, then seed from nothing.
				old, err := Open(ctx, Options{URL: o.URL, Database: o.Database, Template: o.Template, Scale: 1e-5})
				if err != nil {
					b.Fatal(err)
				}
				if err := old.Destroy(ctx); err != nil {
					b.Fatal(err)
				}
				old.Close()
				b.StartTimer()
				if s, err = Open(ctx, o); err != nil {
					b.Fatal(err)
				}
				seed += s.SeedTime
			}
			b.StopTimer()
			defer func() {
				if err := s.Destroy(ctx); err != nil {
					b.Error(err)
				}
				s.Close()
			}()
			var resets []time.Duration
			for range 5 {
				d, err := s.Reset(ctx)
				if err != nil {
					b.Fatal(err)
				}
				resets = append(resets, d)
			}
			sort.Slice(resets, func(i, j int) bool { return resets[i] < resets[j] })
			size, err := s.TemplateBytes(ctx)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric((seed / time.Duration(b.N)).Seconds(), "seed-s")
			b.ReportMetric(float64(resets[2].Microseconds())/1000, "reset-ms")
			b.ReportMetric(float64(size)/(1<<20), "template-MiB")
			if testing.Verbose() {
				fmt.Fprintf(os.Stderr, "scale %v: resets %v\n", scale, resets)
			}
		})
	}
}
