package session

import "fmt"

// Summary kinds: what a summary.json's "kind" says wrote it.
var summaryKinds = []string{"race", "matrix", "sweep", "scale"}

// KindOf reads the kind of a summary.json read from path: one of race, matrix, sweep or scale.
func KindOf(path string, b []byte) (string, error) {
	var head struct {
		Kind string `json:"kind"`
	}
	if err := decodeObject(path, b, &head); err != nil {
		return "", err
	}
	if err := oneOf(path, "kind", head.Kind, summaryKinds...); err != nil {
		return "", err
	}
	return head.Kind, nil
}

// DecodeMatrix decodes and checks summary.json of a matrix session (no schema_version: its
// layout has had one version).
func DecodeMatrix(path string, b []byte) (*Matrix, error) {
	var m Matrix
	if err := decodeKind(path, b, "matrix", &m, &m.Kind); err != nil {
		return nil, err
	}
	if err := checkRuns(path, "runs", m.Runs); err != nil {
		return nil, err
	}
	return &m, nil
}

// DecodeSweep decodes and checks summary.json of a sweep session.
func DecodeSweep(path string, b []byte) (*Sweep, error) {
	var sw Sweep
	if err := decodeKind(path, b, "sweep", &sw, &sw.Kind); err != nil {
		return nil, err
	}
	for i, p := range sw.Points {
		if err := checkRun(path, fmt.Sprintf("points[%d].run", i), p.Run); err != nil {
			return nil, err
		}
	}
	return &sw, nil
}

// DecodeScale decodes and checks summary.json of a scale session.
func DecodeScale(path string, b []byte) (*Scale, error) {
	var sc Scale
	if err := decodeKind(path, b, "scale", &sc, &sc.Kind); err != nil {
		return nil, err
	}
	for i, r := range sc.Runs {
		if err := checkRun(path, fmt.Sprintf("runs[%d]", i), r.Run); err != nil {
			return nil, err
		}
	}
	return &sc, nil
}

// decodeKind decodes b into v, whose kind field (*kind) must say want.
func decodeKind(path string, b []byte, want string, v any, kind *string) error {
	if err := decodeObject(path, b, v); err != nil {
		return err
	}
	return oneOf(path, "kind", *kind, want)
}
