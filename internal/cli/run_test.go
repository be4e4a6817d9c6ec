package cli

import (
	"strings"
	"testing"
)

// A flag given with --resume would be silently replaced by the recorded
// ones; it is refused instead.
func TestResumeRefusesOtherFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--resume", "r", "--rounds", "2"}, "drop --rounds"},
		{[]string{"run", "--resume", "r", "--out", "o"}, "drop --out"},
		{[]string{"run", "-f", "other.yaml", "--resume", "r", "--skip-parity"}, "drop -f, --skip-parity"},
	} {
		code, _, errOut := runMain(t, t.TempDir(), nil, c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: code %d, stderr %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
}
