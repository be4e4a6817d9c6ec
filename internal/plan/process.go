package plan

import (
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

var (
	processKeys = []string{"sizes", "warmup", "rounds", "timeout", "commands"}
	commandKeys = []string{"name", "dir", "generate", "build", "run", "env", "dx"}
)

// SizePlaceholder is replaced by the size in a process command's run
// arguments, generate and build commands and dx paths.
const SizePlaceholder = "{size}"

// SizeEnv is the environment variable that carries the size to every
// process-suite command.
const SizeEnv = "STACKBENCH_SIZE"

// Defaults of the process suite.
const (
	DefaultProcessWarmup  = 1
	DefaultProcessRounds  = 10
	DefaultProcessTimeout = 60 * time.Second
)

// ProcessSuite is the file's process: section: commands timed from spawn
// to exit at each size.
type ProcessSuite struct {
	// Sizes are the values of the size parameter, in file order.
	Sizes []int `json:"sizes"`
	// Warmup is the number of unmeasured runs of each command at each size
	// before the rounds; Rounds the number of measured runs.
	Warmup int `json:"warmup"`
	Rounds int `json:"rounds"`
	// Timeout bounds one run; a run that takes longer fails its cell.
	Timeout  time.Duration `json:"timeout_ns"`
	Commands []Command     `json:"commands"`
	Line     int           `json:"-"`
}

// Command is one variant of the process suite.
type Command struct {
	Name string `json:"name"`
	// Dir is absolute; Generate and Build run in it through a shell, once
	// per size, before the runs (untimed here; the DX suite times them).
	Dir      string `json:"dir"`
	Generate string `json:"generate,omitempty"`
	Build    string `json:"build,omitempty"`
	// Run is the measured command's argument list, split on white space and
	// run without a shell, so that a shell's own start is not measured.
	Run      []string          `json:"run"`
	Env      map[string]string `json:"env,omitempty"`
	EnvOrder []string          `json:"-"`
	DX       *DX               `json:"dx,omitempty"`
	Line     int               `json:"-"`
}

const commandExample = "- name: hand\n        dir: .\n        build: go build -o bin/hand-{size} ./gen/n{size}/hand\n        run: bin/hand-{size}"

// process reads the process: section.
func (p *parser) process(n *yaml.Node) *ProcessSuite {
	m, ok := p.fields(n, "process", processKeys, "process: {sizes: [100, 1000], commands: [...]}")
	if !ok {
		return nil
	}
	s := &ProcessSuite{Warmup: DefaultProcessWarmup, Rounds: DefaultProcessRounds, Timeout: DefaultProcessTimeout, Line: deref(n).Line}
	if v := m.get("sizes"); v != nil {
		if items, ok := p.items(v, "sizes", "sizes: [100, 1000]"); ok {
			seen := map[int]bool{}
			for _, it := range items {
				size, ok := p.atLeast(it, "a size", 0, "sizes: [100, 1000]")
				if ok && seen[size] {
					p.addf(it, "size %d appears twice in sizes; keep one", size)
					continue
				}
				if ok {
					seen[size] = true
					s.Sizes = append(s.Sizes, size)
				}
			}
		}
	} else {
		p.addf(n, "process has no sizes; add sizes: the values passed to every command, e.g. sizes: [100, 1000]")
	}
	if v := m.get("warmup"); v != nil {
		s.Warmup, _ = p.atLeast(v, "warmup", 0, "warmup: 1 (unmeasured runs per command and size)")
	}
	if v := m.get("rounds"); v != nil {
		s.Rounds, _ = p.atLeast(v, "rounds", 1, "rounds: 10")
	}
	if v := m.get("timeout"); v != nil {
		s.Timeout, _ = p.duration(v, "timeout", 10*time.Millisecond)
	}
	if v := m.get("commands"); v != nil {
		s.Commands = p.commands(v)
	} else {
		p.addf(n, "process has no commands; add\n    commands:\n      %s", commandExample)
	}
	return s
}

// commands reads the list of process-suite commands.
func (p *parser) commands(n *yaml.Node) []Command {
	n = deref(n)
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		p.addf(n, "commands must be a list with at least one command, not %s; write\n    commands:\n      %s", describe(n), commandExample)
		return nil
	}
	var out []Command
	seen := map[string]int{}
	for _, item := range n.Content {
		c, ok := p.command(deref(item))
		if line, dup := seen[c.Name]; dup && c.Name != "" {
			p.addf(item, "command name %q is already used at line %d; give each command its own name", c.Name, line)
			continue
		}
		seen[c.Name] = c.Line
		if ok {
			out = append(out, c)
		}
	}
	return out
}

// command reads one process-suite command.
func (p *parser) command(n *yaml.Node) (Command, bool) {
	before := len(p.problems)
	c := Command{Line: n.Line}
	what := "this command"
	if name := peekKey(n, "name"); name != "" {
		what = "command " + quote(name)
	}
	m, ok := p.fields(n, what, commandKeys, commandExample)
	if !ok {
		return c, false
	}
	if v := m.get("name"); v != nil {
		c.Name, _ = p.ident(v, "command", "hand")
	} else {
		p.addf(n, "%s has no name; add name: followed by a short unique name, e.g. name: hand", what)
	}
	if v := m.get("dir"); v != nil {
		if dir, ok := p.str(v, "dir", "dir: ."); ok {
			c.Dir = p.stackDir(v, dir)
		}
	} else {
		p.addf(n, "%s has no dir; add dir: the directory to build and run it in, e.g. dir: .", what)
	}
	if v := m.get("run"); v != nil {
		if s, ok := p.str(v, "run", "run: bin/hand-{size}"); ok {
			c.Run = strings.Fields(s)
			if strings.ContainsAny(s, "|&;<>$`'\"") {
				p.addf(v, "run %q is run without a shell, so shell syntax (quotes, $, pipes) does not work; write the program and its arguments, e.g. run: bin/hand-{size} {size}, and do the rest in build", s)
			}
		}
	} else {
		p.addf(n, "%s has no run; add run: the program to time and its arguments, e.g. run: bin/hand-{size}", what)
	}
	if v := m.get("generate"); v != nil {
		c.Generate, _ = p.str(v, "generate", "generate: go run github.com/google/wire/cmd/wire ./gen/n{size}/wire")
	}
	if v := m.get("build"); v != nil {
		c.Build, _ = p.str(v, "build", "build: go build -o bin/hand-{size} ./gen/n{size}/hand")
	}
	if v := m.get("env"); v != nil {
		c.Env, c.EnvOrder = p.env(v)
	}
	if v := m.get("dx"); v != nil && c.Dir != "" {
		c.DX = p.dx(v, c.Dir, what)
	}
	return c, len(p.problems) == before
}

// HasDX reports whether any stack or process command of the file asks for
// the DX suite.
func (f *File) HasDX() bool {
	for _, s := range f.Stacks {
		if s.DX != nil {
			return true
		}
	}
	if f.Process != nil {
		for _, c := range f.Process.Commands {
			if c.DX != nil {
				return true
			}
		}
	}
	return false
}
