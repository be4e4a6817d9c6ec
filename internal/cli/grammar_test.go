package cli

import (
	"bytes"
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// helpFlags runs `stackbench NAME -h` and returns its flags by name
// ("f", "stacks") with their usage text.
func helpFlags(t *testing.T, name string) map[string]string {
	t.Helper()
	code, out, errOut := runMain(t, t.TempDir(), nil, name, "-h")
	if code != ExitOK || errOut != "" || !strings.Contains(out, "Usage: stackbench "+name) {
		t.Fatalf("%s -h: code %d, stderr %q; want %d and the usage on stdout", name, code, errOut, ExitOK)
	}
	flags := map[string]string{}
	lines := strings.Split(out, "\n")
	head := regexp.MustCompile(`^  --?([a-z0-9][a-z0-9-]*)\b`)
	for i, l := range lines {
		if m := head.FindStringSubmatch(l); m != nil && i+1 < len(lines) {
			flags[m[1]] = strings.TrimSpace(lines[i+1])
		}
	}
	return flags
}

// noStacks are the commands that read a comparison file and start no
// stack of it, so have nothing to select.
var noStacks = map[string]string{
	"process": "times the commands of the file's process: section, not its stacks",
}

// requiredArgs are the flags a command needs before it reads its file.
var requiredArgs = map[string][]string{
	"pgo": {"--stacks", "a", "--out", "default.pgo"},
}

// TestEveryCommandFollowsOneGrammar walks every command's flags: help on
// stdout with exit 0; a bad flag one line and ExitUsage; a command that
// reads the comparison file takes -f (default stackbench.yaml) through the
// prologue — a missing file and a stray argument are usage errors that
// name what to do — and, when it starts stacks, selects them with --stacks
// and its alias --stack; -o is always an output format, never a file.
func TestEveryCommandFollowsOneGrammar(t *testing.T) {
	var names []string
	for name, c := range commands {
		if !c.Hidden && name != "version" {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	readsFile := 0
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			flags := helpFlags(t, name)
			code, out, errOut := runMain(t, t.TempDir(), nil, name, "--no-such-flag")
			if code != ExitUsage || out != "" || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || !strings.Contains(errOut, "run with -h") {
				t.Errorf("--no-such-flag: code %d, stdout %q, stderr %q; want %d and one line", code, out, errOut, ExitUsage)
			}
			if usage, ok := flags["o"]; ok && !regexp.MustCompile(`json|format`).MatchString(usage) {
				t.Errorf("-o is %q; -o is an output format in every command", usage)
			}
			if _, ok := flags["f"]; !ok {
				return
			}
			readsFile++
			if !strings.Contains(flags["f"], "comparison file") {
				t.Errorf("-f is %q, want the comparison file", flags["f"])
			}
			_, help, _ := runMain(t, t.TempDir(), nil, name, "-h")
			if !strings.Contains(help, "(default stackbench.yaml)") || !strings.Contains(help, "[-f FILE]") {
				t.Errorf("help does not say -f FILE with its default stackbench.yaml:\n%s", help)
			}
			if _, exempt := noStacks[name]; !exempt {
				if _, ok := flags["stacks"]; !ok {
					t.Errorf("no --stacks: every command that starts stacks selects them with --stacks a,b")
				}
				if _, ok := flags["stack"]; !ok {
					t.Errorf("no --stack, the alias of --stacks")
				}
				if !strings.Contains(help, "--stacks") {
					t.Errorf("the synopsis does not show --stacks:\n%s", help)
				}
			}
			args := append([]string{name, "-f", "missing.yaml"}, requiredArgs[name]...)
			code, _, errOut = runMain(t, t.TempDir(), nil, args...)
			if code != ExitUsage || !strings.Contains(errOut, "missing.yaml") {
				t.Errorf("%v: code %d, stderr %q; want %d naming the file", args, code, errOut, ExitUsage)
			}
			args = append([]string{name, "stray"}, requiredArgs[name]...)
			code, _, errOut = runMain(t, t.TempDir(), nil, args...)
			if code != ExitUsage || !strings.Contains(errOut, `unexpected argument "stray"; name the file with -f`) {
				t.Errorf("%v: code %d, stderr %q; want %d and the prologue's message", args, code, errOut, ExitUsage)
			}
		})
	}
	if readsFile < 8 {
		t.Errorf("%d commands read a comparison file; want boot, dx, explain, parity, pgo, plan, process and run", readsFile)
	}
}

// TestStacksAndStackAreOneSelection: --stacks a,b, --stack a --stack b
// and a mix select the same stacks, each once.
func TestStacksAndStackAreOneSelection(t *testing.T) {
	dir := writeComparison(t, "workload: micro\nstacks:\n  - {name: a, dir: apps/a, start: ./a}\n  - {name: b, dir: apps/b, start: ./b}\n  - {name: c, dir: apps/a, start: ./c}\n")
	for _, args := range [][]string{
		{"--stacks", "a,c"}, {"--stack", "a", "--stack", "c"}, {"--stacks", "a", "--stack", "c,a"},
	} {
		code, out, errOut := runMain(t, dir, nil, append([]string{"plan", "-o", "json"}, args...)...)
		if code != ExitOK {
			t.Fatalf("plan %v: code %d, stderr %s", args, code, errOut)
		}
		got := regexp.MustCompile(`"name": "([abc])"`).FindAllStringSubmatch(out, -1)
		var names []string
		for _, m := range got {
			if !slices.Contains(names, m[1]) {
				names = append(names, m[1])
			}
		}
		if strings.Join(names, ",") != "a,c" {
			t.Errorf("plan %v selected %v, want a,c", args, names)
		}
	}
}

// TestCommandsKeepTheirOwnRules reads the package's code: exit codes only
// through the Exit constants, no os.Exit anywhere (main owns the exit),
// and output only through Env (os.Stdout and os.Stderr appear only in
// OSEnv, fmt.Print and the log package nowhere).
func TestCommandsKeepTheirOwnRules(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		var fn string
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				fn = n.Name.Name
			case *ast.CompositeLit:
				if id, ok := n.Type.(*ast.Ident); ok && id.Name == "ExitError" {
					for _, e := range n.Elts {
						kv, ok := e.(*ast.KeyValueExpr)
						if k, _ := kv.Key.(*ast.Ident); ok && k.Name == "Code" {
							if _, lit := kv.Value.(*ast.BasicLit); lit {
								t.Errorf("%s: ExitError with a literal code; use the Exit constants", fset.Position(kv.Pos()))
							}
						}
					}
				}
			case *ast.SelectorExpr:
				pkg, _ := n.X.(*ast.Ident)
				if pkg == nil {
					return true
				}
				sel := pkg.Name + "." + n.Sel.Name
				switch {
				case sel == "os.Exit":
					t.Errorf("%s: os.Exit in %s; return an exit code to Main", fset.Position(n.Pos()), fn)
				case (sel == "os.Stdout" || sel == "os.Stderr") && fn != "OSEnv":
					t.Errorf("%s: %s in %s; write to env.Stdout or env.Stderr", fset.Position(n.Pos()), sel, fn)
				case pkg.Name == "fmt" && strings.HasPrefix(n.Sel.Name, "Print"), pkg.Name == "log":
					t.Errorf("%s: %s in %s; write through Env", fset.Position(n.Pos()), sel, fn)
				}
			case *ast.ReturnStmt:
				if fn == "Main" || fn == "exitCode" {
					for _, r := range n.Results {
						if lit, ok := r.(*ast.BasicLit); ok {
							t.Errorf("%s: %s returns the literal %s; use the Exit constants", fset.Position(lit.Pos()), fn, lit.Value)
						}
					}
				}
			}
			return true
		})
	}
}

// TestSecondInterruptStopsAtOnce: the first interrupt cancels the command
// and prints its note; the second, for a command that asked for it,
// returns ExitInterrupted at once without waiting for the command — and
// the process is never exited from a goroutine.
func TestSecondInterruptStopsAtOnce(t *testing.T) {
	release, ready := make(chan struct{}), make(chan struct{})
	defer close(release)
	register(Command{Name: "test-block", Hidden: true, Run: func(ctx context.Context, _ []string, env Env) error {
		env.onInterrupt("first note", "hard note")
		close(ready)
		<-ctx.Done()
		<-release // tearing down, for ever
		return ctx.Err()
	}})
	defer delete(commands, "test-block")
	sigs := make(chan os.Signal, 2)
	var stderr bytes.Buffer
	env := Env{Stdout: &bytes.Buffer{}, Stderr: &stderr, Getenv: func(string) string { return "" }, Interrupts: sigs}
	done := make(chan int, 1)
	go func() { done <- Main(context.Background(), []string{"test-block"}, env) }()
	<-ready
	sigs <- os.Interrupt
	select {
	case code := <-done:
		t.Fatalf("Main returned %d after one interrupt; the command was still tearing down", code)
	case <-time.After(200 * time.Millisecond):
	}
	sigs <- os.Interrupt
	select {
	case code := <-done:
		if code != ExitInterrupted {
			t.Errorf("code %d, want %d", code, ExitInterrupted)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a second interrupt did not stop Main")
	}
	if s := stderr.String(); !strings.Contains(s, "first note") || !strings.Contains(s, "hard note") {
		t.Errorf("stderr %q, want both notes", s)
	}
}
