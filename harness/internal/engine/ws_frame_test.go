package engine

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// wsFrame is one decoded frame, for comparing parser output.
type wsFrame struct {
	op      byte
	fin     bool
	payload []byte
}

// parseAll feeds the pieces to one parser in order, as successive reads, and collects the
// frames. Pieces are copied first, because the parser unmasks in place.
func parseAll(t testing.TB, f *frameParser, pieces ...[]byte) []wsFrame {
	t.Helper()
	var out []wsFrame
	var cur []byte
	for _, p := range pieces {
		p = append([]byte(nil), p...)
		for off := 0; off < len(p); {
			n, ev, chunk := f.next(p[off:])
			if n == 0 && ev != wsFrameEnd {
				t.Fatalf("no progress at offset %d (event %d)", off, ev)
			}
			off += n
			switch ev {
			case wsProtocol:
				t.Fatalf("protocol error: %s", f.why)
			case wsChunk:
				cur = append(cur, chunk...)
			case wsFrameEnd:
				cur = append(cur, chunk...)
				out = append(out, wsFrame{f.op, f.fin, cur})
				cur = nil
			}
		}
	}
	if f.inPayload || f.hn != 0 {
		t.Fatalf("stream ended inside a frame")
	}
	return out
}

// naiveMask is §5.3 written out byte by byte, the reference for xorMask.
func naiveMask(b []byte, key uint32, pos int) []byte {
	var m [4]byte
	binary.LittleEndian.PutUint32(m[:], key)
	out := make([]byte, len(b))
	for i := range b {
		out[i] = b[i] ^ m[(pos+i)%4]
	}
	return out
}

func payloadOf(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7) + seed
	}
	return b
}

func TestHeaderLengthEncodings(t *testing.T) {
	cases := []struct {
		n      int
		len7   byte
		header int // unmasked
	}{
		{0, 0, 2}, {1, 1, 2}, {64, 64, 2}, {125, 125, 2},
		{126, 126, 4}, {127, 126, 4}, {65535, 126, 4},
		{65536, 127, 10}, {70000, 127, 10},
	}
	for _, c := range cases {
		for _, masked := range []bool{false, true} {
			p := payloadOf(c.n, 3)
			key := uint32(0xA1B2C3D4)
			fr := appendFrame(nil, opBinary, p, masked, key)
			wantHdr := c.header
			if masked {
				wantHdr += 4
			}
			if got := headerLen(c.n, masked); got != wantHdr {
				t.Errorf("n=%d masked=%v: headerLen %d, want %d", c.n, masked, got, wantHdr)
			}
			if len(fr) != wantHdr+c.n {
				t.Fatalf("n=%d masked=%v: frame is %d bytes, want %d", c.n, masked, len(fr), wantHdr+c.n)
			}
			if fr[0] != 0x82 || fr[1]&0x7F != c.len7 || (fr[1]&0x80 != 0) != masked {
				t.Errorf("n=%d masked=%v: header % x", c.n, masked, fr[:2])
			}
			switch c.len7 {
			case 126:
				if got := binary.BigEndian.Uint16(fr[2:]); int(got) != c.n {
					t.Errorf("n=%d: 16-bit length %d", c.n, got)
				}
			case 127:
				if got := binary.BigEndian.Uint64(fr[2:]); int(got) != c.n {
					t.Errorf("n=%d: 64-bit length %d", c.n, got)
				}
			}
			if masked && c.n > 0 && bytes.Equal(fr[wantHdr:], p) {
				t.Errorf("n=%d: masked payload went out in clear", c.n)
			}
			f := frameParser{allowMasked: masked}
			got := parseAll(t, &f, fr)
			if len(got) != 1 || got[0].op != opBinary || !got[0].fin || !bytes.Equal(got[0].payload, p) {
				t.Errorf("n=%d masked=%v: round trip gave %d frames", c.n, masked, len(got))
			}
		}
	}
}

func TestXorMaskMatchesRFC(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 500 {
		n := r.IntN(100)
		pos := r.IntN(9)
		key := r.Uint32()
		src := payloadOf(n, byte(r.IntN(256)))
		want := naiveMask(src, key, pos)
		dst := make([]byte, n)
		if end := xorMask(dst, src, key, pos); end != pos+n {
			t.Fatalf("returned pos %d, want %d", end, pos+n)
		}
		if !bytes.Equal(dst, want) {
			t.Fatalf("n=%d pos=%d key=%08x: got % x want % x", n, pos, key, dst, want)
		}
		// In place, and masking twice is the identity.
		xorMask(dst, dst, key, pos)
		if !bytes.Equal(dst, src) {
			t.Fatalf("n=%d pos=%d: unmasking did not restore the payload", n, pos)
		}
	}
}

// The mask continues across reads: a masked payload split at any byte unmasks the same.
func TestMaskedFrameSplitAnywhere(t *testing.T) {
	p := payloadOf(300, 9)
	fr := appendFrame(nil, opText, p, true, 0x01020304)
	for cut := range len(fr) + 1 {
		f := frameParser{allowMasked: true}
		got := parseAll(t, &f, fr[:cut], fr[cut:])
		if len(got) != 1 || !bytes.Equal(got[0].payload, p) {
			t.Fatalf("cut at %d: payload differs", cut)
		}
	}
}

// serverStream is what a server may send: data frames of every length encoding, a
// fragmented message with a ping between its fragments, an empty frame, and a close.
func serverStream() ([]byte, []wsFrame) {
	var b []byte
	var want []wsFrame
	add := func(op byte, fin bool, p []byte) {
		var h [maxHeaderLen]byte
		hn := putHeader(h[:], op, len(p), false, 0)
		if !fin {
			h[0] &^= 0x80
		}
		b = append(b, h[:hn]...)
		b = append(b, p...)
		want = append(want, wsFrame{op, fin, p})
	}
	for i := range 3 {
		add(opBinary, true, payloadOf(64, byte(i)))
	}
	add(opText, true, []byte("hello"))
	add(opBinary, true, payloadOf(200, 5)) // 16-bit length
	add(opBinary, false, payloadOf(10, 6))
	add(opPing, true, []byte("ping!"))
	add(opContinuation, true, payloadOf(20, 7))
	add(opBinary, true, nil)
	add(opPong, true, nil)
	add(opClose, true, closePayload(closeNormal))
	return b, want
}

func equalFrames(t *testing.T, what string, got, want []wsFrame) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d frames, want %d", what, len(got), len(want))
	}
	for i := range want {
		if got[i].op != want[i].op || got[i].fin != want[i].fin || !bytes.Equal(got[i].payload, want[i].payload) {
			t.Fatalf("%s: frame %d is op %d fin %v len %d, want op %d fin %v len %d", what, i,
				got[i].op, got[i].fin, len(got[i].payload), want[i].op, want[i].fin, len(want[i].payload))
		}
	}
}

func TestParserSeveralFramesInOneRead(t *testing.T) {
	stream, want := serverStream()
	var f frameParser
	equalFrames(t, "one read", parseAll(t, &f, stream), want)
}

func TestParserSplitAtEveryByte(t *testing.T) {
	stream, want := serverStream()
	for cut := range len(stream) + 1 {
		var f frameParser
		equalFrames(t, "two reads", parseAll(t, &f, stream[:cut], stream[cut:]), want)
	}
	// And three reads, the middle one a single byte, at every position.
	for cut := range len(stream) {
		var f frameParser
		equalFrames(t, "three reads", parseAll(t, &f, stream[:cut], stream[cut:cut+1], stream[cut+1:]), want)
	}
}

func TestParserOneByteAtATime64BitLength(t *testing.T) {
	p := payloadOf(70000, 1)
	fr := appendFrame(nil, opBinary, p, false, 0)
	fr = appendFrame(fr, opText, []byte("after"), false, 0)
	pieces := make([][]byte, len(fr))
	for i := range fr {
		pieces[i] = fr[i : i+1]
	}
	var f frameParser
	got := parseAll(t, &f, pieces...)
	equalFrames(t, "byte by byte", got, []wsFrame{{opBinary, true, p}, {opText, true, []byte("after")}})
}

func TestParserRejects(t *testing.T) {
	cases := []struct {
		name string
		b    []byte
		max  uint64
	}{
		{"masked from server", appendFrame(nil, opBinary, []byte("x"), true, 1), 0},
		{"reserved bit", []byte{0x82 | 0x40, 0}, 0},
		{"unknown opcode", []byte{0x83, 0}, 0},
		{"fragmented control", []byte{0x09, 0}, 0},
		{"long control", append([]byte{0x89, 126, 0, 126}, make([]byte, 126)...), 0},
		{"64-bit MSB", []byte{0x82, 127, 0x80, 0, 0, 0, 0, 0, 0, 1}, 0},
		{"over size limit", appendFrame(nil, opBinary, make([]byte, 100), false, 0), 64},
	}
	for _, c := range cases {
		f := frameParser{maxPayload: c.max}
		_, ev, _ := f.next(c.b)
		if ev != wsProtocol || f.why == "" {
			t.Errorf("%s: event %d, want a protocol error", c.name, ev)
		}
	}
}
