package plan

import (
	"path/filepath"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

var (
	dxKeys     = []string{"install", "cold", "artifact", "deps", "reload", "rounds"}
	reloadKeys = []string{"start", "edit", "path", "timeout"}
	editKeys   = []string{"file", "find", "replace"}
)

// DefaultDXRounds is the number of rounds of the DX suite when dx: names none.
const DefaultDXRounds = 3

// DefaultReloadTimeout bounds one reload: the write → the changed answer.
const DefaultReloadTimeout = 30 * time.Second

// DX is what the developer-experience suite measures of a stack or a
// process-suite command (its dx: key). Paths are absolute; commands run in
// the owner's dir through a shell.
type DX struct {
	// Install is a command that installs the dependencies (e.g. npm ci),
	// timed cold and warm.
	Install string `json:"install,omitempty"`
	// Cold are directories inside dir (e.g. node_modules, a private npm cache
	// or GOCACHE) removed before every cold install and build. Without any,
	// only warm figures are taken.
	Cold []string `json:"cold,omitempty"`
	// Artifact is a file or directory whose size in bytes is reported after
	// the build.
	Artifact string `json:"artifact,omitempty"`
	// DepsDir is a dependency directory (node_modules) to weigh and count;
	// DepsCommand instead is a Go module list command (go list -m all).
	DepsDir     string `json:"deps_dir,omitempty"`
	DepsCommand string `json:"deps_command,omitempty"`
	// Reload is the watch-mode edit to time; nil when not asked.
	Reload *Reload `json:"reload,omitempty"`
	// Rounds is the number of cold/warm passes and reloads.
	Rounds int `json:"rounds"`
	// Line is where the dx: mapping starts in the file.
	Line int `json:"-"`
}

// Reload is a watch-mode start plus a one-line edit: the suite starts
// Start, writes Replace in place of Find in File, and polls Path until the
// answer changes. The file is always restored.
type Reload struct {
	Start   string        `json:"start"`
	File    string        `json:"file"`
	Find    string        `json:"find"`
	Replace string        `json:"replace"`
	Path    string        `json:"path"`
	Timeout time.Duration `json:"timeout_ns"`
}

const dxExample = "dx: {install: npm ci, deps: node_modules}"

// dx reads a dx: mapping; dir is the owner's absolute directory.
func (p *parser) dx(n *yaml.Node, dir, what string) *DX {
	m, ok := p.fields(n, "dx of "+what, dxKeys, dxExample)
	if !ok {
		return nil
	}
	d := &DX{Rounds: DefaultDXRounds, Line: deref(n).Line}
	if v := m.get("install"); v != nil {
		d.Install, _ = p.str(v, "install", "install: npm ci")
	}
	if v := m.get("cold"); v != nil {
		if items, ok := p.items(v, "cold", "cold: [node_modules, .npm-cache]"); ok {
			for _, it := range items {
				if abs, ok := p.inside(it, "cold", dir, "cold: [node_modules]"); ok {
					d.Cold = append(d.Cold, abs)
				}
			}
		}
	}
	if v := m.get("artifact"); v != nil {
		if s, ok := p.str(v, "artifact", "artifact: bin/server"); ok {
			d.Artifact = join(dir, s)
		}
	}
	if v := m.get("deps"); v != nil {
		if s, ok := p.str(v, "deps", "deps: node_modules, or deps: go list -m all"); ok {
			if strings.HasPrefix(s, "go list -m") {
				d.DepsCommand = s
			} else {
				d.DepsDir = join(dir, s)
			}
		}
	}
	if v := m.get("rounds"); v != nil {
		d.Rounds, _ = p.atLeast(v, "rounds", 1, "rounds: 3")
	}
	if v := m.get("reload"); v != nil {
		d.Reload = p.reload(v, dir, what)
	}
	return d
}

// reload reads the reload: mapping of a dx: section.
func (p *parser) reload(n *yaml.Node, dir, what string) *Reload {
	const example = "reload: {start: node --watch server.js, edit: {file: app.js, find: \"'ok'\", replace: \"'ok!'\"}, path: /health}"
	m, ok := p.fields(n, "reload of "+what, reloadKeys, example)
	if !ok {
		return nil
	}
	r := &Reload{Timeout: DefaultReloadTimeout}
	if v := m.get("start"); v != nil {
		r.Start, _ = p.str(v, "start", "start: node --watch server.js")
	} else {
		p.addf(n, "reload of %s has no start; add start: the watch-mode command, e.g. start: node --watch server.js", what)
	}
	if v := m.get("path"); v != nil {
		r.Path, _ = p.path(v, "path", "/health")
	} else {
		p.addf(n, "reload of %s has no path; add path: the route polled until its answer changes, e.g. path: /health", what)
	}
	if v := m.get("timeout"); v != nil {
		r.Timeout, _ = p.duration(v, "timeout", 100*time.Millisecond)
	}
	if v := m.get("edit"); v != nil {
		p.edit(v, dir, what, r)
	} else {
		p.addf(n, "reload of %s has no edit; add edit: {file: app.js, find: \"old\", replace: \"new\"}", what)
	}
	return r
}

// edit reads the file, find and replace of a reload.
func (p *parser) edit(n *yaml.Node, dir, what string, r *Reload) {
	m, ok := p.fields(n, "edit of "+what, editKeys, "edit: {file: app.js, find: \"old\", replace: \"new\"}")
	if !ok {
		return
	}
	if v := m.get("file"); v != nil {
		r.File, _ = p.inside(v, "file", dir, "file: app.js")
	} else {
		p.addf(n, "edit of %s has no file; add file: the source file to edit, relative to dir", what)
	}
	if v := m.get("find"); v != nil {
		r.Find, _ = p.str(v, "find", "find: \"'ok'\" (text that occurs in the file)")
	} else {
		p.addf(n, "edit of %s has no find; add find: the text to replace", what)
	}
	if v := m.get("replace"); v != nil {
		r.Replace, _ = p.str(v, "replace", "replace: \"'ok!'\"")
		if r.Replace == r.Find && r.Find != "" {
			p.addf(v, "replace is the same as find, so the edit changes nothing; write a different text")
		}
	} else {
		p.addf(n, "edit of %s has no replace; add replace: the text written in place of find", what)
	}
}

// inside reads a path relative to dir that must stay inside it: the suite
// deletes cold directories and rewrites edited files, so a path outside
// the stack's own tree is refused.
func (p *parser) inside(n *yaml.Node, field, dir, example string) (string, bool) {
	s, ok := p.str(n, field, example)
	if !ok {
		return "", false
	}
	clean := filepath.Clean(s)
	if filepath.IsAbs(s) || clean == "." || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		p.addf(n, "%s %q must be a path inside dir (stackbench deletes or rewrites it); write e.g. %s", field, s, example)
		return "", false
	}
	return filepath.Join(dir, clean), true
}

// join resolves a path against dir unless it is absolute.
func join(dir, s string) string {
	if filepath.IsAbs(s) {
		return s
	}
	return filepath.Join(dir, s)
}
