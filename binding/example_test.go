package binding_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"time"

	"github.com/bindrace/bindrace/binding"
)

// A server with a Go handler, a route parameter, a handler finished later from another
// goroutine, and a route answered in C++ only.
func Example() {
	app := binding.New(binding.Config{})
	app.Get("/id/:id", func(w *binding.Response, r *binding.Request) {
		w.Header("x-powered-by", "benchmark")
		w.Write(r.Param("id")) // views into the request: valid during the handler
		w.WriteString(" ")
		w.Write(r.Query("name"))
	})
	app.Get("/later", func(w *binding.Response, r *binding.Request) {
		later := w.Detach() // answer from any goroutine, e.g. after a database call
		go func() {
			time.Sleep(time.Millisecond)
			later.WriteString("done")
			later.End()
		}()
	})
	app.Static("GET", "/", 200, "text/plain", []byte("hi")) // no Go on this path at all
	if err := app.Listen("127.0.0.1:0", 1); err != nil {    // returns once it accepts
		log.Fatal(err)
	}
	defer app.Shutdown(context.Background()) // answers what was read, flushes, closes

	for _, path := range []string{"/", "/id/1?name=bun", "/later"} {
		res, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d%s", app.Port(), path))
		if err != nil {
			log.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		fmt.Printf("%s -> %s\n", path, body)
	}
	// Output:
	// / -> hi
	// /id/1?name=bun -> 1 bun
	// /later -> done
}
