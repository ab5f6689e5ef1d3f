package binding

import "testing"

func TestNativeBuild(t *testing.T) {
	old := nativeBuild
	defer func() { nativeBuild = old }()
	nativeBuild = "variant=release;library_sha256=ab;profile_sha256=;source_sha256=cd;git_commit=ef"
	b := NativeBuild()
	// The variant comes from the build tag this test binary was built with, never from the stamp.
	if b["variant"] != linkedVariant || b["library_sha256"] != "ab" || b["source_sha256"] != "cd" || b["git_commit"] != "ef" {
		t.Errorf("%v", b)
	}
	if _, ok := b["profile_sha256"]; ok {
		t.Errorf("an empty value was kept: %v", b)
	}
	nativeBuild = ""
	if b := NativeBuild(); len(b) != 1 || b["variant"] != linkedVariant {
		t.Errorf("unstamped source build: %v", b)
	}
}
