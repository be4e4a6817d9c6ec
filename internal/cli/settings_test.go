package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/plan"
)

// badValues are values a setting refuses, each for a reason of its own
// (its syntax, then each of its bounds).
func badValues(s plan.Setting) []string {
	switch s.Type {
	case plan.Count:
		out := []string{"x", strconv.Itoa(s.Low - 1)}
		if s.High > 0 {
			out = append(out, strconv.Itoa(s.High+1))
		}
		return out
	case plan.Duration:
		return []string{"5x", (s.Min - 1).String()}
	}
	return badByType[s.Type]
}

var badByType = map[plan.SettingType][]string{
	plan.Rounds:        {"x", "0", "-3"},
	plan.CountList:     {"0", "x", "10,10", "0,x,200000"},
	plan.ChoiceOf:      {"nope"},
	plan.Fraction:      {"x", "150%", "0"},
	plan.Switch:        {"maybe"},
	plan.GateThreshold: {"x", "-1"},
	plan.RateOf:        {"x", "0%"},
	plan.ChoiceList:    {"speed", "cost,cost", "throughput,x"},
}

// yamlOf writes a setting's value in a protocol section: nested keys
// (gate.wait) as a mapping, a list setting as a YAML list.
func yamlOf(s plan.Setting, raw string) string {
	value := strconv.Quote(raw)
	if s.Type == plan.CountList || s.Type == plan.ChoiceList {
		value = "[" + raw + "]"
	}
	if parent, key, ok := strings.Cut(s.Key, "."); ok {
		return fmt.Sprintf("protocol:\n  %s: {%s: %s}\n", parent, key, value)
	}
	return fmt.Sprintf("protocol:\n  %s: %s\n", s.Key, value)
}

// TestSettingsSayTheSameInFileAndFlag gives every setting that has a flag
// the same bad values in a comparison file and on the command line: both
// refuse each, with the same words after the value (the file names the
// key and the line, the command line the flag).
func TestSettingsSayTheSameInFileAndFlag(t *testing.T) {
	const stacks = "stacks:\n  - {name: a, dir: apps/a, start: ./server}\n"
	checked := 0
	for _, s := range plan.Settings {
		if s.Flag == "" {
			continue
		}
		bad := badValues(s)
		if len(bad) == 0 {
			t.Errorf("%s: no bad values for its type", s.Key)
		}
		for _, raw := range bad {
			fileMsg := fileProblem(t, yamlOf(s, raw)+stacks)
			flagMsg := strings.TrimSuffix(flagProblem(t, s, raw), "; run with -h for the flags")
			quoted := strconv.Quote(raw)
			fi, gi := strings.Index(fileMsg, quoted), strings.Index(flagMsg, quoted)
			if fi < 0 || gi < 0 {
				t.Errorf("%s %s: a message does not quote the value:\n file: %s\n flag: %s", s.Key, raw, fileMsg, flagMsg)
				continue
			}
			if fileMsg[fi:] != flagMsg[gi:] {
				t.Errorf("%s %s: the file and the flag say different things:\n file: %s\n flag: %s", s.Key, raw, fileMsg, flagMsg)
			}
			if !strings.Contains(flagMsg[:gi], "--"+s.Flag) {
				t.Errorf("%s %s: the flag's message does not name --%s: %s", s.Key, raw, s.Flag, flagMsg)
			}
			checked++
		}
	}
	if checked < 30 {
		t.Errorf("only %d values checked", checked)
	}
}

// fileProblem loads a comparison file and returns its one problem.
func fileProblem(t *testing.T, yaml string) string {
	t.Helper()
	dir := writeComparison(t, yaml)
	_, err := plan.Load(filepath.Join(dir, "stackbench.yaml"))
	var ce *plan.ConfigError
	if !errors.As(err, &ce) || len(ce.Problems) != 1 {
		t.Fatalf("want one problem with\n%s\ngot %v", yaml, err)
	}
	return ce.Problems[0].String()
}

// flagProblem parses the override flags with --flag=raw and returns the
// error.
func flagProblem(t *testing.T, s plan.Setting, raw string) string {
	t.Helper()
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	read := overrideFlags(fs)
	if _, err := parseFlags(fs, []string{"--" + s.Flag + "=" + raw}); err != nil {
		return err.Error()
	}
	_, err := read()
	if err == nil {
		t.Fatalf("--%s=%s was taken", s.Flag, raw)
	}
	return err.Error()
}
