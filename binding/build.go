package binding

import "strings"

// nativeBuild is the Makefile's stamp of the native library a release, plain or instrumented
// binary links (scripts/manifest.sh --stamp): "variant=…;library_sha256=…;profile_sha256=…;
// source_sha256=…;git_commit=…". Empty in a `go build` from source.
var nativeBuild string

// NativeBuild says which native core this binary runs: "variant" (release, plain, instrumented,
// or source for a plain `go build`), and for Makefile builds the library's, the PGO profile's
// and the native sources' sha256 and the commit, so a benchmark can name the build it measured.
// Empty values are left out.
func NativeBuild() map[string]string {
	out := map[string]string{"variant": linkedVariant}
	for _, kv := range strings.Split(nativeBuild, ";") {
		if k, v, ok := strings.Cut(kv, "="); ok && k != "variant" && v != "" {
			out[k] = v
		}
	}
	return out
}
