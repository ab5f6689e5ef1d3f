//go:build !asan

package binding

// asanBuild: see asan_on_test.go.
const asanBuild = false
