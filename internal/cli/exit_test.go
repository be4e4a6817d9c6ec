package cli

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/run"
)

// The exit-code table of docs/ci.md is the one help prints.
func TestExitCodesTableInDocsAndHelp(t *testing.T) {
	data, err := os.ReadFile("../../docs/ci.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "## Exit codes\n")
	if !ok {
		t.Fatal("docs/ci.md has no Exit codes section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	rows := regexp.MustCompile(`(?m)^\| (\d+) \| (.*) \|$`).FindAllStringSubmatch(section, -1)
	if len(rows) != len(exitCodes) {
		t.Fatalf("docs/ci.md lists %d exit codes, the code %d", len(rows), len(exitCodes))
	}
	_, help, _ := runMain(t, t.TempDir(), nil, "help")
	for i, r := range rows {
		code, _ := strconv.Atoi(r[1])
		if code != exitCodes[i].Code || r[2] != exitCodes[i].Meaning {
			t.Errorf("docs/ci.md row %d: %d %q; the code: %d %q", i+1, code, r[2], exitCodes[i].Code, exitCodes[i].Meaning)
		}
		if line := fmt.Sprintf("  %3d  %s\n", exitCodes[i].Code, exitCodes[i].Meaning); !strings.Contains(help, line) {
			t.Errorf("help lacks %q", line)
		}
	}
}

// A run whose parity gate failed could not measure: exit 4, not 1 (which
// means a gate on what was measured failed).
func TestRunExitCodes(t *testing.T) {
	var ee *ExitError
	if err := runExit(fmt.Errorf("gin differs: %w", run.ErrParity), t.TempDir(), false); !errors.As(err, &ee) || ee.Code != ExitNotMeasured {
		t.Errorf("parity failed: %v", err)
	}
	if code := exitCode(errors.New("start stack gin: port 8080 is in use"), "run", &strings.Builder{}); code != ExitNotMeasured {
		t.Errorf("an error that stopped the run: exit %d, want 4", code)
	}
	if code := exitCode(usagef("bad"), "run", &strings.Builder{}); code != ExitUsage {
		t.Errorf("a usage error: exit %d, want 2", code)
	}
}

// TestCIDocSpeaksOfWhatExists: docs/ci.md describes git: stacks as they
// are, not as work still to land, and says what report A B exits with when
// the runs have nothing in common (the code TestReportCompareNothingInCommon
// pins).
func TestCIDocSpeaksOfWhatExists(t *testing.T) {
	data, err := os.ReadFile("../../docs/ci.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := strings.Join(strings.Fields(string(data)), " ")
	for _, stale := range []string{"When the own-app work", "stacks land,"} {
		if strings.Contains(doc, stale) {
			t.Errorf("docs/ci.md still says %q: git: stacks exist (internal/plan, docs/config.md)", stale)
		}
	}
	if !strings.Contains(doc, "share no stack, no case or no concurrency") {
		t.Error("docs/ci.md does not say what report A B does with runs that share nothing")
	}
}
