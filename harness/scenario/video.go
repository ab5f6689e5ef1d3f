package scenario

import (
	"crypto/sha256"
	"encoding/hex"
	"sync"
)

// VideoByte is the stream scenario's byte at offset i. The formula is simple enough to repeat
// in the TypeScript server of the uws target and varied enough that a server cannot send a
// short repeated block by mistake and pass verification.
func VideoByte(i int) byte { return byte(i*7 + i/4093) }

// FillVideo writes the stream scenario's body into dst (VideoSize bytes), for servers that keep
// it in memory of their own.
func FillVideo(dst []byte) {
	for i := range dst {
		dst[i] = VideoByte(i)
	}
}

var video = sync.OnceValue(func() []byte {
	b := make([]byte, VideoSize)
	FillVideo(b)
	return b
})

// Video returns the stream scenario's body. It is built once and shared: do not modify it.
func Video() []byte { return video() }

// VideoSHA256 is the hex SHA-256 of Video, which verification compares.
var VideoSHA256 = sync.OnceValue(func() string {
	sum := sha256.Sum256(Video())
	return hex.EncodeToString(sum[:])
})
