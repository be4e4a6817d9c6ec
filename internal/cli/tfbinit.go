package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/stackbench/stackbench/internal/pgfix"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/workload"
	"go.yaml.in/yaml/v3"
)

// tfbEntry is one imported TFB entry folder.
type tfbEntry struct {
	Dir string // as given
	Abs string
	Cfg *tfbConfig
}

// tfbStack is one chosen variant of an entry, with its Dockerfile read.
type tfbStack struct {
	Name    string
	Entry   tfbEntry
	Variant tfbVariant
	// DockerfileName is the file read (in Entry.Abs); Guess is what it says.
	DockerfileName string
	Guess          dockerGuess
	GuessErr       error
}

// tfbImport is what `init --tfb` writes: the stacks in order, the cases
// they all serve at tfb's paths, and the warnings to print.
type tfbImport struct {
	Stacks   []tfbStack
	Cases    []string
	Warnings []string
	// Container: each stack is built from its Dockerfile and run in a
	// container (init --tfb --container) instead of natively.
	Container bool
}

// readTFBEntry reads DIR/benchmark_config.json, refusing a link or a file
// that is not regular (outside input: no link is followed).
func readTFBEntry(dir, resolved string) (tfbEntry, error) {
	abs, err := filepath.Abs(resolved)
	if err != nil {
		return tfbEntry{}, err
	}
	data, err := readRegular(filepath.Join(abs, "benchmark_config.json"))
	if err != nil {
		return tfbEntry{}, fmt.Errorf("%s: %w; point --tfb at a TFB framework folder (frameworks/<Language>/<name>)", dir, err)
	}
	cfg, err := parseTFBConfig(filepath.Join(dir, "benchmark_config.json"), data)
	if err != nil {
		return tfbEntry{}, err
	}
	return tfbEntry{Dir: dir, Abs: abs, Cfg: cfg}, nil
}

// readRegular reads a regular file that is not a symbolic link.
func readRegular(path string) ([]byte, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (links are not followed)", filepath.Base(path))
	}
	return os.ReadFile(path)
}

// chooseTFBStacks picks the variants to import: those named by variants
// (all of them in each entry when nil) that use PostgreSQL or no database.
func chooseTFBStacks(entries []tfbEntry, variants []string) (tfbImport, error) {
	var imp tfbImport
	for _, want := range variants {
		if !slices.ContainsFunc(entries, func(e tfbEntry) bool {
			return slices.ContainsFunc(e.Cfg.Variants, func(v tfbVariant) bool { return v.Name == want })
		}) {
			return imp, fmt.Errorf("--variants %s: no entry has a variant %q", strings.Join(variants, ","), want)
		}
	}
	names := map[string]bool{}
	for _, e := range entries {
		n := 0
		for _, v := range e.Cfg.Variants {
			if variants != nil && !slices.Contains(variants, v.Name) {
				continue
			}
			if db := strings.ToLower(v.Database); db != "" && db != "none" && db != "postgres" && db != "postgresql" {
				msg := fmt.Sprintf("%s: variant %s uses %s; the tfb workload's database is PostgreSQL", e.Dir, v.Name, v.Database)
				if variants != nil {
					return imp, fmt.Errorf("%s; choose PostgreSQL variants with --variants", msg)
				}
				imp.Warnings = append(imp.Warnings, msg+": left out")
				continue
			}
			s := tfbStack{Entry: e, Variant: v, Name: tfbStackName(e.Cfg.Framework, v.Name)}
			for base, k := s.Name, 2; names[s.Name]; k++ {
				s.Name = base + "-" + strconv.Itoa(k)
			}
			names[s.Name] = true
			imp.Stacks = append(imp.Stacks, s)
			n++
		}
		if n == 0 {
			return imp, fmt.Errorf("%s: no variant to import (its variants: %s); name some with --variants", e.Dir, variantNames(e.Cfg))
		}
	}
	if variants == nil {
		// TFB's usual layout: a default variant with json and plaintext,
		// a postgres one with the database test types. Unnamed, they
		// share nothing; keep the group that serves the most.
		imp.Stacks, imp.Warnings = widestTFBGroup(imp.Stacks, imp.Warnings)
	}
	imp.Cases, imp.Warnings = commonTFBCases(imp.Stacks, imp.Warnings)
	if len(imp.Cases) == 0 {
		return imp, fmt.Errorf("the chosen variants serve no test type in common (%s); choose variants with --variants", strings.Join(imp.Warnings, "; "))
	}
	return imp, nil
}

// widestTFBGroup keeps, of stacks that share no test type, those that
// serve every test type of the stack that serves the most (the first such
// stack on a tie), and warns of each one left out; stacks that share one
// are all kept, and so are they all when a whole entry would be left out.
func widestTFBGroup(stacks []tfbStack, warnings []string) ([]tfbStack, []string) {
	if len(stacks) < 2 {
		return stacks, warnings
	}
	if cases, _ := commonTFBCases(stacks, nil); len(cases) > 0 {
		return stacks, warnings
	}
	widest := 0
	for i, s := range stacks {
		if len(s.Variant.URLs) > len(stacks[widest].Variant.URLs) {
			widest = i
		}
	}
	serves := func(s tfbStack) bool {
		for c := range stacks[widest].Variant.URLs {
			if _, ok := s.Variant.URLs[c]; !ok {
				return false
			}
		}
		return true
	}
	var kept []tfbStack
	var wide []string
	for c := range stacks[widest].Variant.URLs {
		wide = append(wide, c)
	}
	slices.SortFunc(wide, func(a, b string) int {
		return slices.Index(workload.TFBCaseNames, a) - slices.Index(workload.TFBCaseNames, b)
	})
	for _, s := range stacks {
		if serves(s) {
			kept = append(kept, s)
			continue
		}
		warnings = append(warnings, fmt.Sprintf("%s: variant %s left out: it shares no test type with %s (%s); import it on its own with --variants %s",
			s.Entry.Dir, s.Variant.Name, stacks[widest].Name, strings.Join(wide, ", "), s.Variant.Name))
	}
	for _, s := range stacks {
		if !slices.ContainsFunc(kept, func(k tfbStack) bool { return k.Entry.Abs == s.Entry.Abs }) {
			// A whole entry would go: that is the user's to choose.
			return stacks, warnings[:len(warnings)-(len(stacks)-len(kept))]
		}
	}
	return kept, warnings
}

// commonTFBCases are the test types every stack serves, at whatever
// path (a stack's own paths go in its paths:), in tfb's order; each case
// left out is a warning.
func commonTFBCases(stacks []tfbStack, warnings []string) ([]string, []string) {
	var cases []string
	for _, c := range workload.TFBCaseNames {
		missing := slices.IndexFunc(stacks, func(s tfbStack) bool { _, ok := s.Variant.URLs[c]; return !ok })
		switch {
		case missing < 0:
			cases = append(cases, c)
		case anyHas(stacks, c):
			warnings = append(warnings, fmt.Sprintf("case %s left out: stack %s has no %s URL", c, stacks[missing].Name, c))
		}
	}
	return cases, warnings
}

// tfbOwnPaths are a stack's URLs for cases that differ from tfb's own
// paths: what its paths: key says.
func tfbOwnPaths(s tfbStack, cases []string) map[string]string {
	out := map[string]string{}
	for _, c := range cases {
		if u := s.Variant.URLs[c]; u != workload.TFBPath(c) {
			out[c] = u
		}
	}
	return out
}

func anyHas(stacks []tfbStack, c string) bool {
	return slices.ContainsFunc(stacks, func(s tfbStack) bool { _, ok := s.Variant.URLs[c]; return ok })
}

func variantNames(c *tfbConfig) string {
	var out []string
	for _, v := range c.Variants {
		out = append(out, v.Name)
	}
	return strings.Join(out, ", ")
}

// tfbStackName is the stack's name: the framework for the default
// variant, framework-variant for the others.
func tfbStackName(framework, variant string) string {
	name := framework
	if variant != "default" {
		name += "-" + variant
	}
	if name = strings.Trim(nonName.ReplaceAllString(name, "-"), "-._"); name == "" {
		name = "entry"
	}
	return name
}

// dockerfileName is the Dockerfile TFB builds a variant from.
func dockerfileName(framework string, v tfbVariant) string {
	if v.Dockerfile != "" {
		return v.Dockerfile
	}
	if v.Name == "default" {
		return framework + ".dockerfile"
	}
	return framework + "-" + v.Name + ".dockerfile"
}

// readGuesses reads each stack's Dockerfile; a missing or unreadable one
// leaves the stack's start to be written by the user.
func (imp *tfbImport) readGuesses() {
	for i := range imp.Stacks {
		s := &imp.Stacks[i]
		s.DockerfileName = dockerfileName(s.Entry.Cfg.Framework, s.Variant)
		if s.DockerfileName != filepath.Base(s.DockerfileName) || strings.HasPrefix(s.DockerfileName, ".") {
			s.GuessErr = fmt.Errorf("dockerfile %q is not a file name in the entry's folder", s.DockerfileName)
			continue
		}
		data, err := readRegular(filepath.Join(s.Entry.Abs, s.DockerfileName))
		if err == nil {
			s.Guess, err = parseDockerfile(data)
		}
		s.GuessErr = err
	}
}

// tfbRuntime is plan's runtime for a variant's language and platform.
func tfbRuntime(v tfbVariant) string {
	p := strings.ToLower(v.Platform)
	switch {
	case strings.Contains(p, "bun"):
		return "bun"
	case strings.Contains(p, "deno"):
		return "deno"
	}
	switch strings.ToLower(v.Language) {
	case "javascript", "typescript":
		return "node"
	case "python":
		return "python"
	case "go":
		return "go"
	case "java", "kotlin", "scala", "clojure", "groovy":
		return "jvm"
	case "c#", "f#", "vb":
		return "dotnet"
	case "rust", "c", "c++", "zig", "nim", "d", "crystal", "v", "swift", "haskell", "ocaml":
		return "native"
	}
	return ""
}

// tfbYAML renders the comparison file through yaml.v3's encoder. outDir
// is the directory the file goes in (stack dirs are relative to it).
func tfbYAML(imp tfbImport, outDir string) ([]byte, error) {
	var from []string
	for _, s := range imp.Stacks {
		if !slices.Contains(from, s.Entry.Dir) {
			from = append(from, s.Entry.Dir)
		}
	}
	doc := mapNode()
	doc.HeadComment = "Written by stackbench init --tfb " + strings.Join(from, " ") + ": TechEmpower Framework Benchmarks entries\n" +
		"on the built-in tfb workload (docs/workloads.md). Each stack's build and start are a GUESS read\n" +
		"from its Dockerfile: confirm them, then run 'stackbench plan' and 'stackbench parity'.\n" +
		"A stack listens on $PORT and reaches its database copy through DATABASE_URL or the libpq variables\n" +
		"PGHOST, PGPORT, PGDATABASE, PGUSER, PGPASSWORD (set by the harness for tfb): an entry that dials\n" +
		"tfb-database:" + "5432" + "/" + pgfix.TFBDatabase + " or listens on a fixed port needs that one line changed (docs/workloads.md, \"TFB entries\")."
	wl := mapNode()
	addScalar(wl, "name", "tfb")
	cases := seqNode(true)
	for _, c := range imp.Cases {
		cases.Content = append(cases.Content, scalar(c))
	}
	addNode(wl, "cases", cases)
	addNode(doc, "workload", wl)
	stacks := seqNode(false)
	for _, s := range imp.Stacks {
		n, err := tfbStackNode(s, imp.Cases, imp.Container, outDir)
		if err != nil {
			return nil, err
		}
		stacks.Content = append(stacks.Content, n)
	}
	addNode(doc, "stacks", stacks)
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{doc}}); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func tfbStackNode(s tfbStack, cases []string, container bool, outDir string) (*yaml.Node, error) {
	v := s.Variant
	n := mapNode()
	meta := []string{}
	for _, kv := range [][2]string{{"approach", v.Approach}, {"classification", v.Classification}, {"orm", v.ORM},
		{"database", v.Database}, {"language", v.Language}, {"platform", v.Platform}} {
		if kv[1] != "" {
			meta = append(meta, kv[0]+" "+kv[1])
		}
	}
	comment := fmt.Sprintf("%s, variant %s: %s", s.Entry.Cfg.Framework, v.Name, strings.Join(meta, ", "))
	if v.Approach == "Stripped" {
		comment += "\nStripped: TFB marks this variant as tuned for the test, not production code."
	}
	if v.Port != 0 {
		comment += fmt.Sprintf("\nTFB runs it on port %d; stackbench gives it PORT: it must listen there.", v.Port)
	}
	dir, err := filepath.Rel(outDir, s.Entry.Abs)
	if err != nil {
		dir = s.Entry.Abs
	}
	addScalar(n, "name", s.Name)
	addScalar(n, "dir", filepath.ToSlash(dir))
	g := s.Guess
	if container && s.GuessErr == nil {
		return tfbContainerNode(n, s, comment, cases), nil
	}
	switch {
	case s.GuessErr != nil:
		comment += fmt.Sprintf("\nGUESS: %s could not be read (%v); write the start command.", s.DockerfileName, s.GuessErr)
	default:
		comment += fmt.Sprintf("\nGUESS from %s (base image %s): build from its RUN lines, start from its CMD; confirm both.",
			s.DockerfileName, strings.Join(g.From, ", "))
		if g.Workdir != "" {
			comment += "\nIts WORKDIR " + g.Workdir + " is inside the image: paths under it are the entry's folder here."
		}
		for _, sk := range g.Skipped {
			comment += "\nLeft out (installs system packages; install them yourself): " + sk
		}
	}
	n.HeadComment = comment
	if len(g.Build) > 0 {
		addScalar(n, "build", strings.Join(g.Build, " && "))
	}
	start := g.Start
	if start == "" {
		start = "echo 'write the start command of " + s.Name + "'; exit 1"
	}
	addScalar(n, "start", start)
	addTFBStackKeys(n, s, cases)
	if len(g.Env) > 0 {
		env := mapNode()
		for _, kv := range g.Env {
			if kv[0] == "PORT" || kv[0] == "DATABASE_URL" || !envName.MatchString(kv[0]) {
				continue // the harness sets them
			}
			addScalar(env, kv[0], kv[1])
		}
		if len(env.Content) > 0 {
			addNode(n, "env", env)
		}
	}
	return n, nil
}

// tfbContainerNode is a stack built from its variant's Dockerfile and run
// in a container (docs/containers.md): no build or start of its own (the
// image's CMD runs), its labels and paths as a native stack's.
func tfbContainerNode(n *yaml.Node, s tfbStack, comment string, cases []string) *yaml.Node {
	n.HeadComment = comment + fmt.Sprintf("\nIn a container built from %s (base image %s) on the host's network, given PORT and the\n"+
		"database as DATABASE_URL and PGHOST…PGPASSWORD: it must listen on $PORT and read them (tfb-database does not\n"+
		"resolve there either). Its base image must be pullable here.", s.DockerfileName, strings.Join(s.Guess.From, ", "))
	c := mapNode()
	c.Style = yaml.FlowStyle
	addScalar(c, "build", s.DockerfileName)
	addNode(n, "container", c)
	addTFBStackKeys(n, s, cases)
	return n
}

// addTFBStackKeys adds what a native and a container stack of an entry
// both say: its health path, runtime, TechEmpower labels and own paths.
func addTFBStackKeys(n *yaml.Node, s tfbStack, cases []string) {
	v := s.Variant
	addScalar(n, "health", tfbStackHealth(v))
	if rt := tfbRuntime(v); rt != "" {
		addScalar(n, "runtime", rt)
	}
	if labels := tfbLabelsNode(v); labels != nil {
		addNode(n, "tfb", labels)
	}
	if paths := tfbPathsNode(s, cases); paths != nil {
		addNode(n, "paths", paths)
	}
}

// tfbPathsNode is a stack's paths: key, its URLs that differ from tfb's;
// nil when none do.
func tfbPathsNode(s tfbStack, cases []string) *yaml.Node {
	own := tfbOwnPaths(s, cases)
	if len(own) == 0 {
		return nil
	}
	paths := mapNode()
	paths.Style = yaml.FlowStyle
	for _, c := range workload.TFBCaseNames {
		if u, ok := own[c]; ok {
			addScalar(paths, c, u)
		}
	}
	return paths
}

// tfbStackHealth polls a route without the database when the variant has one.
func tfbStackHealth(v tfbVariant) string {
	for _, c := range []string{"plaintext", "json", "db"} {
		if u, ok := v.URLs[c]; ok {
			return u
		}
	}
	for _, c := range workload.TFBCaseNames {
		if u, ok := v.URLs[c]; ok {
			return u + "1"
		}
	}
	return "/"
}

// tfbLabelsNode is a stack's tfb: key, the labels its variant carries
// that the report shows beside it (approach, ORM, classification), in
// flow style; nil when it has none. A value TFB does not use is left out
// with the others kept (plan accepts TFB's own values only).
func tfbLabelsNode(v tfbVariant) *yaml.Node {
	n := mapNode()
	n.Style = yaml.FlowStyle
	for _, kv := range []struct {
		key, value string
		known      []string
	}{{"approach", v.Approach, plan.TFBApproaches}, {"orm", v.ORM, plan.TFBORMs}, {"classification", v.Classification, plan.TFBClassifications}} {
		if i := slices.IndexFunc(kv.known, func(k string) bool { return strings.EqualFold(k, kv.value) }); i >= 0 {
			addScalar(n, kv.key, kv.known[i])
		}
	}
	if len(n.Content) == 0 {
		return nil
	}
	return n
}

func mapNode() *yaml.Node { return &yaml.Node{Kind: yaml.MappingNode} }

func seqNode(flow bool) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode}
	if flow {
		n.Style = yaml.FlowStyle
	}
	return n
}

func addScalar(m *yaml.Node, key, value string) { addNode(m, key, scalar(value)) }

func addNode(m *yaml.Node, key string, v *yaml.Node) {
	m.Content = append(m.Content, scalar(key), v)
}

// writeTFBStarter is `init --tfb`: it reads the entries, chooses the
// variants and writes stackbench.yaml in outDir.
func writeTFBStarter(dirs []string, resolve func(string) string, variants []string, container bool, outDir string, force bool, warn func(string)) (string, error) {
	var entries []tfbEntry
	for _, d := range dirs {
		e, err := readTFBEntry(d, resolve(d))
		if err != nil {
			return "", err
		}
		entries = append(entries, e)
	}
	imp, err := chooseTFBStacks(entries, variants)
	if err != nil {
		return "", err
	}
	imp.readGuesses()
	imp.Container = container
	for _, s := range imp.Stacks {
		if container && s.GuessErr != nil {
			imp.Warnings = append(imp.Warnings, fmt.Sprintf("stack %s runs natively: its Dockerfile could not be read (%v)", s.Name, s.GuessErr))
		}
	}
	for _, w := range imp.Warnings {
		warn(w)
	}
	content, err := tfbYAML(imp, outDir)
	if err != nil {
		return "", err
	}
	path := filepath.Join(outDir, "stackbench.yaml")
	return path, writeStarter(path, string(content), force)
}

// envName is what an environment variable's name may look like.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
