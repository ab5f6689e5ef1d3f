package kinds

import (
	"errors"
	"strings"
	"testing"

	"github.com/bindrace/bindrace/harness/measure"
	"github.com/bindrace/bindrace/harness/profile"
	"github.com/bindrace/bindrace/harness/scenario"
	"github.com/bindrace/bindrace/harness/setting"
)

// A database scenario that writes runs one server at a time: windows the profile set (not the
// user) come down to 1 with a warning; windows the user gave are refused, naming the setting.
// The read-only ones keep the profile's interleaved windows.
func TestCheckDBAdaptsWindows(t *testing.T) {
	getUser, _ := scenario.ByName("get-user")
	createOrder, _ := scenario.ByName("create-order")
	ping, _ := scenario.ByName("ping")
	p := profile.Default()
	o := &Options{Profile: &p, DB: measure.DBOptions{Scale: 1}}
	pl := measure.Plan{Method: profile.Method{Windows: 4}}
	var warnings []string
	if err := checkDB(o, &pl, []scenario.Scenario{ping}, &warnings); err != nil || pl.Windows != 4 {
		t.Fatalf("a session without a database scenario: %v, windows %d", err, pl.Windows)
	}
	if err := checkDB(o, &pl, []scenario.Scenario{ping, getUser}, &warnings); err != nil || pl.Windows != 4 || len(warnings) != 0 {
		t.Fatalf("a read-only database scenario: %v, windows %d, warnings %q; want 4 and none", err, pl.Windows, warnings)
	}
	if err := checkDB(o, &pl, []scenario.Scenario{getUser, createOrder}, &warnings); err != nil {
		t.Fatal(err)
	}
	if pl.Windows != 1 || len(warnings) != 1 || !strings.Contains(warnings[0], "the profile's 4 windows per run became 1: [create-order] write") {
		t.Errorf("windows %d, warnings %q; want 1 and a note saying so", pl.Windows, warnings)
	}
	o.Given = map[string]bool{"windows": true}
	pl.Windows = 4
	if err := checkDB(o, &pl, []scenario.Scenario{getUser}, &warnings); err != nil || pl.Windows != 4 {
		t.Errorf("windows given, read-only: %v, windows %d; want 4 kept", err, pl.Windows)
	}
	err := checkDB(o, &pl, []scenario.Scenario{createOrder}, &warnings)
	var se *setting.Error
	if !errors.As(err, &se) || se.Settings()[0] != "windows" || !strings.Contains(err.Error(), "one server runs at a time") {
		t.Errorf("windows given, create-order: %v, want a refusal naming the setting", err)
	}
}
