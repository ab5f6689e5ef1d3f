package load

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// checkRequest refuses bytes that are not one whole HTTP/1.x request: a request line, header
// lines, the end of the head, the body its framing announces and nothing after it. A
// WebSocket set-up is such a request too (an upgrade). A config's requests are checked so before
// anything is sent: a load of bytes no server can answer would measure nothing.
func checkRequest(b []byte) error {
	br := bufio.NewReader(bytes.NewReader(b))
	req, err := http.ReadRequest(br)
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("not an HTTP request: it ends before its head does (a blank line, \\r\\n\\r\\n)")
	}
	if err != nil {
		return fmt.Errorf("not an HTTP request: %v", err)
	}
	if req.ProtoMajor != 1 {
		return fmt.Errorf("%s: the load speaks HTTP/1.x", req.Proto)
	}
	if _, err := io.Copy(io.Discard, req.Body); err != nil {
		return fmt.Errorf("its body is shorter than its head announces: %v", err)
	}
	if n := br.Buffered(); n > 0 {
		return fmt.Errorf("%d bytes after the request (its body is longer than its head announces, or a second request follows): one request an entry", n)
	}
	return nil
}
