//go:build asan

package binding

// asanBuild: this test binary runs on an AddressSanitizer core (make test-sanitize). ASan keeps
// freed memory in quarantine (up to 256 MiB) to catch use-after-free, so RSS after many frees
// is no leak signal there; LeakSanitizer checks leaks in that build instead.
const asanBuild = true
