package cli

import (
	"strings"
	"testing"
)

func TestStepStacks(t *testing.T) {
	stacks := []string{"pq", "pgx", "pgo", "fiber"}
	got, err := stepStacks("pgx..fiber", stacks)
	if err != nil || strings.Join(got, ",") != "pgx,pgo,fiber" {
		t.Errorf("pgx..fiber = %v, %v; want pgx, pgo, fiber", got, err)
	}
	for spec, want := range map[string]string{
		"pgx":       "write FROM..TO",
		"pgo..pq":   "must be listed before",
		"pgx..nope": `no stack "nope"`,
		"..pgx":     "write FROM..TO",
	} {
		if _, err := stepStacks(spec, stacks); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("--steps %s: %v; want an error saying %q", spec, err, want)
		}
	}
}
