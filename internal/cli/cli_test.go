package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestNoArgumentsPrintsTheCommandsOnStderr(t *testing.T) {
	code, out, errOut := runMain(t, t.TempDir(), nil)
	if code != 2 || out != "" || !strings.Contains(errOut, "Commands:") {
		t.Fatalf("code %d, stdout %q, stderr %q; want 2, nothing, the command list", code, out, errOut)
	}
}

func TestHelpGoesToStdout(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"--help"}, {"help", "plan"}, {"plan", "-h"}, {"run", "--help"}} {
		code, out, errOut := runMain(t, t.TempDir(), nil, args...)
		if code != 0 || errOut != "" || !strings.Contains(out, "Usage: stackbench") || args[0] == "help" && len(args) == 1 && !strings.Contains(out, "\nExit status:\n    0  passed") {
			t.Errorf("%v: code %d, stdout %q, stderr %q; want 0 and the usage on stdout", args, code, out, errOut)
		}
	}
	_, out, _ := runMain(t, t.TempDir(), nil, "help", "plan")
	if !strings.HasPrefix(out, "stackbench plan: check stackbench.yaml and show what a run would do\n\nUsage: stackbench plan [-f FILE]") || !strings.Contains(out, "-windows") {
		t.Errorf("help plan printed %q; want plan's own flags", out)
	}
	code, _, errOut := runMain(t, t.TempDir(), nil, "help", "nope")
	if code != 2 || !strings.Contains(errOut, `unknown command "nope"`) {
		t.Errorf("help nope: code %d, stderr %q", code, errOut)
	}
}

// A bad flag is one line that names it, not the whole usage first.
func TestBadFlagIsOneLine(t *testing.T) {
	for _, args := range [][]string{
		{"plan", "--bogus"}, {"run", "--min-rounds", "x"}, {"parity", "-o"}, {"init", "--forse"}, {"report", "-x", "dir"},
	} {
		code, out, errOut := runMain(t, t.TempDir(), nil, args...)
		lines := strings.Split(strings.TrimSpace(errOut), "\n")
		if code != 2 || out != "" || len(lines) != 1 || !strings.Contains(errOut, "run with -h for the flags") {
			t.Errorf("%v: code %d, stdout %q, stderr %q; want 2 and one line on stderr", args, code, out, errOut)
		}
	}
}

// An interrupted command exits 130 and says so, not "context canceled".
func TestInterruptedCommand(t *testing.T) {
	dir := t.TempDir()
	yaml := "workload: micro\nstacks:\n  - name: silent\n    dir: .\n    start: exec sleep 60\n"
	if err := os.WriteFile(filepath.Join(dir, "stackbench.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(time.Second, cancel)
	var stdout, stderr bytes.Buffer
	env := Env{Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }, Dir: dir}
	if code := Main(ctx, []string{"parity"}, env); code != 130 || !strings.HasSuffix(stderr.String(), "stackbench parity: interrupted\n") {
		t.Errorf("code %d, stderr %q; want 130 and 'interrupted'", code, stderr.String())
	}
}

func TestBadFlagValueSaysWhatToWrite(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"plan", "--window", "10"}, `--window "10": not a duration; write a number with a unit, e.g. 5s (units: ms, s, m, h)`},
		{[]string{"run", "--rounds", "three"}, `--rounds "three": not a number of rounds; write a whole number, e.g. 5, or auto`},
		{[]string{"run", "--max-rounds", "three"}, `--max-rounds "three": not a whole number; write e.g. 12`},
		{[]string{"boot", "-n", "99999999999999999999"}, `-n "99999999999999999999": write a smaller whole number`},
		{[]string{"plan", "--spread=maybe"}, `--spread "maybe": not on or off; write on (or true) or off (or false)`},
		{[]string{"plan", "--nope"}, "flag provided but not defined: -nope"},
	} {
		code, _, errOut := runMain(t, t.TempDir(), nil, c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: code %d, stderr %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
}

func TestUnknownCommandSuggestsTheNearest(t *testing.T) {
	for cmd, want := range map[string]string{
		"rnu":     `stackbench: unknown command "rnu"; did you mean "run"? run 'stackbench help' for the list` + "\n",
		"parity2": `stackbench: unknown command "parity2"; did you mean "parity"? run 'stackbench help' for the list` + "\n",
		"xyz":     `stackbench: unknown command "xyz"; run 'stackbench help' for the list` + "\n",
	} {
		if code, _, errOut := runMain(t, t.TempDir(), nil, cmd); code != 2 || errOut != want {
			t.Errorf("%s: code %d, stderr %q; want 2 and %q", cmd, code, errOut, want)
		}
	}
}

// Help writes long flags with two dashes, as the docs do, and one-letter
// flags with one.
func TestHelpWritesFlagsAsTheDocs(t *testing.T) {
	_, out, _ := runMain(t, t.TempDir(), nil, "help", "run")
	for _, want := range []string{"\n  --fail-on string\n", "\n  --window duration\n", "\n  -f string\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("help run lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\n  -window") {
		t.Errorf("help run writes a long flag with one dash:\n%s", out)
	}
}
