package setting

import (
	"fmt"
	"reflect"
	"testing"
)

func TestError(t *testing.T) {
	e := Errorf("{rates} and {fractions}: give one, not both (got %q)", "{rates} 50%")
	if got := e.Error(); got != `rates and fractions: give one, not both (got "{rates} 50%")` {
		t.Errorf("Error() = %q", got)
	}
	flag := func(s string) string { return "--" + s }
	if got := e.Render(flag); got != `--rates and --fractions: give one, not both (got "{rates} 50%")` {
		t.Errorf("Render = %q (a value is never rewritten)", got)
	}
	if got := e.Settings(); !reflect.DeepEqual(got, []string{"rates", "fractions"}) {
		t.Errorf("Settings = %v", got)
	}
	wrapped := fmt.Errorf("profile quick: %w", Errorf("{db_scale} %v: want 0 < scale <= 100", 0))
	if got := Words(wrapped, flag); got != "profile quick: --db_scale 0: want 0 < scale <= 100" {
		t.Errorf("Words = %q", got)
	}
	if got := Words(fmt.Errorf("plain"), flag); got != "plain" {
		t.Errorf("Words of a plain error = %q", got)
	}
}
