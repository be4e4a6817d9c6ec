package darwin

import (
	"os/exec"
	"strings"
	"testing"
)

// The watchdog's script keeps the set of groups it is told about and, at
// the end of its input (the harness gone), kills those still listed. Run
// with /bin/sh here, its kill replaced by an echo.
func TestWatchdogScript(t *testing.T) {
	script := strings.Replace(watchdogScript, `kill -9 -- "-$g" 2>/dev/null`, `echo "$g"`, 1)
	if script == watchdogScript {
		t.Fatal("the script's kill line changed; update this test")
	}
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Stdin = strings.NewReader("+10\n+20\n+30\n-20\n-99\n+40\n-10\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Fields(string(out)); strings.Join(got, " ") != "30 40" {
		t.Errorf("killed %v, want [30 40] (20 and 10 ended, 99 never known)", got)
	}
}
