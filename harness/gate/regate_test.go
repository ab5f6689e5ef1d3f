package gate

import (
	"testing"

	"github.com/bindrace/bindrace/harness/session"
)

func TestWorst(t *testing.T) {
	v := session.Pass
	for _, x := range []string{session.Inconclusive, session.Pass, session.Fail, session.Inconclusive} {
		v = Worst(v, x)
	}
	if v != session.Fail {
		t.Errorf("worst: %s", v)
	}
	if Worst(v, session.Incomplete) != session.Incomplete {
		t.Errorf("incomplete must win")
	}
}
