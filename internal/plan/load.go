package plan

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/stackbench/stackbench/internal/pgfix"
	"github.com/stackbench/stackbench/internal/workload"
)

// topKeys are the keys of a comparison file.
var topKeys = []string{"workload", "database", "profile", "jwt_secret", "protocol", "stacks", "process", "capacity", "thresholds", "hosts", "roles", "placement"}

// Load reads and validates the comparison file at path, with environment
// variables (${NAME} in database and jwt_secret) read from the process. A
// missing file is an error that wraps fs.ErrNotExist and points to
// `stackbench init`; an invalid one is a *ConfigError listing every problem.
func Load(path string) (*File, error) {
	return LoadEnv(path, os.Getenv)
}

// LoadEnv is Load with the environment read through getenv.
func LoadEnv(path string, getenv func(string) string) (*File, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("read comparison file: %w", err)
	}
	if st, err := os.Stat(abs); err == nil && st.IsDir() {
		return nil, &ConfigError{Problems: []Problem{{File: displayName(abs),
			Msg: "is a directory; name the comparison file, e.g. -f " + filepath.Join(displayName(abs), "stackbench.yaml")}}}
	}
	data, err := os.ReadFile(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &missingFileError{name: displayName(abs), err: err}
	}
	if err != nil {
		return nil, fmt.Errorf("read comparison file: %w", err)
	}
	return Parse(data, abs, getenv)
}

// Parse validates the contents of a comparison file whose absolute path is
// path (relative stack dirs are resolved against its directory).
func Parse(data []byte, path string, getenv func(string) string) (*File, error) {
	p := &parser{name: displayName(path), dir: filepath.Dir(path), getenv: getenv}
	f := &File{Path: path, Name: p.name}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		p.problems = append(p.problems, syntaxProblem(p.name, err))
		return nil, &ConfigError{Problems: p.problems}
	}
	if len(doc.Content) == 0 {
		p.addf(nil, "the file is empty; run 'stackbench init' for a starter file")
		return nil, &ConfigError{Problems: p.problems}
	}
	if line, ok := secondDocument(data); ok {
		p.problems = append(p.problems, Problem{File: p.name, Line: line, Msg: "this line ends the YAML document, and what follows it would be ignored: a comparison file is one document; remove the line (or what follows it)"})
		return nil, &ConfigError{Problems: p.problems}
	}
	p.file(deref(doc.Content[0]), f)
	if len(p.problems) > 0 {
		sortProblems(p.problems)
		return nil, &ConfigError{Problems: p.problems}
	}
	return f, nil
}

// file reads the top-level mapping.
func (p *parser) file(root *yaml.Node, f *File) {
	m, ok := p.fields(root, "the comparison file", topKeys, "workload: saas-slice, stacks: [...] (see docs/config.md)")
	if !ok {
		return
	}
	f.JWTSecret = workload.DefaultJWTSecret
	if n := m.get("jwt_secret"); n != nil {
		if s, ok := p.str(n, "jwt_secret", "jwt_secret: a-long-random-string"); ok {
			f.JWTSecret, _ = p.expand(n, "jwt_secret", s)
		}
	}
	f.Profile = "standard"
	if n := m.get("profile"); n != nil {
		if s, ok := p.str(n, "profile", "profile: standard"); ok {
			if _, known := profiles[s]; known {
				f.Profile = s
			} else {
				p.addf(n, "unknown profile %q; %s", s, didYouMean(s, ProfileNames()))
			}
		}
	}
	health := DefaultHealth
	if n := m.get("workload"); n != nil {
		f.Workload, health, f.Custom = p.workload(n, f.JWTSecret)
		f.Scenario, f.Fixture = p.scenario, p.fixture
	} else {
		f.Workload, _ = workload.Builtin("saas-slice", f.JWTSecret)
	}
	f.Database = Embedded
	if n := m.get("database"); n != nil {
		f.Database = p.database(n)
	}
	if f.Workload != nil && !f.Workload.NeedsDatabase && m.has("database") && f.Database != Embedded {
		f.Warnings = append(f.Warnings, Problem{File: p.name, Line: m.get("database").Line, Col: m.get("database").Column,
			Msg: fmt.Sprintf("workload %s uses no database, so database: is not used; remove it", f.Workload.Name)})
	}
	if n := m.get("protocol"); n != nil {
		f.protocol = p.protocol(n, f.Workload)
	}
	if n := m.get("process"); n != nil {
		f.Process = p.process(n)
	}
	if n := m.get("capacity"); n != nil {
		f.capacity = p.capacity(n, f.Workload)
	}
	if n := m.get("thresholds"); n != nil {
		f.thresholds = p.thresholds(n, f.Workload)
	}
	if n := m.get("placement"); n != nil {
		// protocol: placement: is CPU lanes on this machine; a top-level
		// placement: is most likely meant as roles: on hosts.
		p.addf(m.keys["placement"], "placement: belongs under protocol: (CPU lanes on this machine: shared, lanes or auto); to put the server, the database or the generators on other hosts write roles: {server: app1, database: db1, generators: [load1]} beside hosts: (see docs/scale-out.md)")
	}
	if n := m.get("hosts"); n != nil {
		f.Hosts = p.hosts(n)
	}
	if n := m.get("roles"); n != nil {
		f.Roles = p.roles(n, f.Hosts)
	}
	p.checkHosts(m, f)
	if n := m.get("stacks"); n != nil {
		f.Stacks = p.stacks(n, health)
		p.checkStackPaths(f)
		p.checkStackDatabases(f)
		for _, s := range f.Stacks {
			if msg := containerStartWarning(s); msg != "" {
				f.Warnings = append(f.Warnings, Problem{File: p.name, Line: s.Line, Msg: msg})
			}
		}
		p.checkWire(f)
	} else if f.Process == nil {
		p.addf(root, "the file has no stacks; add a stacks: list, e.g.\n    stacks:\n      - name: my-api\n        dir: .\n        start: ./bin/server")
	}
}

// database reads "embedded" or a postgres:// URL.
func (p *parser) database(n *yaml.Node) string {
	s, ok := p.str(n, "database", "database: embedded, or database: postgres://user:pass@127.0.0.1:5432/db")
	if !ok {
		return ""
	}
	s, ok = p.expand(n, "database", s)
	if !ok {
		return ""
	}
	if s == Embedded || strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://") {
		return s
	}
	// A keyword DSN ("host=… password=…") is shown with its password hidden.
	p.addf(n, "database %q is neither embedded nor a postgres:// URL; write database: embedded, or database: postgres://user:pass@host:5432/db", pgfix.Redact(s))
	return ""
}

// expand replaces ${NAME} and $NAME with environment variables; an unset
// variable is a problem, never an empty string.
func (p *parser) expand(n *yaml.Node, field, s string) (string, bool) {
	ok := true
	out := os.Expand(s, func(name string) string {
		v := p.getenv(name)
		if v == "" {
			p.addf(n, "%s uses ${%s}, which is not set in the environment; export %s or write the value", field, name, name)
			ok = false
		}
		return v
	})
	return out, ok
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// syntaxProblem turns a YAML syntax error into a Problem with its line.
func syntaxProblem(name string, err error) Problem {
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return Problem{File: name, Line: line, Msg: "YAML syntax: " + m[2] + " (at or just below this line); check indentation and quoting: values holding ': ' or ' #' need quotes"}
	}
	return Problem{File: name, Msg: strings.TrimPrefix(msg, "yaml: ") + "; the file must be YAML, see docs/config.md"}
}

// displayName shows a path relative to the working directory when it is
// inside it, absolute otherwise.
func displayName(abs string) string {
	wd, err := os.Getwd()
	if err != nil {
		return abs
	}
	rel, err := filepath.Rel(wd, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return abs
	}
	return rel
}

// missingFileError says that the comparison file does not exist and how to
// make one; it wraps fs.ErrNotExist.
type missingFileError struct {
	name string
	err  error
}

func (e *missingFileError) Error() string {
	return e.name + " not found; run 'stackbench init' to write a starter file, or pass -f FILE"
}

func (e *missingFileError) Unwrap() error { return e.err }
