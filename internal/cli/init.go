package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/stackbench/stackbench/internal/load"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/workload"
)

func init() {
	register(Command{Name: "init", Short: "write an annotated starter stackbench.yaml here (your app; --compare A B, --openapi FILE, --access-log FILE, --tfb DIR..., --saas-slice)", Order: 50, Run: runInit})
}

// runInit writes a starter stackbench.yaml in the working directory,
// refusing to overwrite an existing file without --force: by default a
// custom workload for the app in this directory; with --compare A B, two
// git revisions of this repository; with --openapi FILE, a case per GET
// operation of the document; with --access-log FILE, a case per top route
// of the log and a mix of them weighted by their requests; with
// --saas-slice, plan.StarterYAML.
func runInit(ctx context.Context, args []string, env Env) error {
	fs := newFlagSet("init", "[--force] [--saas-slice | --compare REV REV | --openapi FILE | --access-log FILE [--top N] | --tfb DIR [DIR...] [--variants a,b] [--container]]", env)
	force := fs.Bool("force", false, "overwrite an existing stackbench.yaml")
	saas := fs.Bool("saas-slice", false, "write the starter for the built-in saas-slice workload (reference stacks)")
	compare := fs.String("compare", "", "REV REV: two git revisions of this repository, one run (e.g. --compare main HEAD)")
	openapi := fs.String("openapi", "", "an OpenAPI 3 document: a case per GET operation")
	accessLog := fs.String("access-log", "", "a web server's access log (common or combined format, or JSON lines with method, path, status): its top routes as a weighted mix")
	top := fs.Int("top", defaultTopRoutes, "with --access-log: how many routes the mix keeps")
	tfb := fs.String("tfb", "", "DIR [DIR...]: TechEmpower Framework Benchmarks entry folders (benchmark_config.json): a stack per variant on the tfb workload")
	variants := fs.String("variants", "", "with --tfb: the variants to import, comma-separated (e.g. default,postgres); all PostgreSQL or database-less ones when unset")
	container := fs.Bool("container", false, "with --tfb: each stack runs in a container built from its variant's Dockerfile (container: {build: …}) instead of natively")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if *tfb != "" {
		return runInitTFB(env, append([]string{*tfb}, rest...), *variants, *container, *force, *saas || *compare != "" || *openapi != "")
	}
	if *variants != "" || *container {
		return usagef("--variants and --container go with --tfb")
	}
	facts := inspectRepo(env.Dir)
	if *openapi != "" {
		facts.build.Base, facts.build.BaseNote = openAPIBase(ctx, resolvePath(env, *openapi))
	}
	stacks := plan.AppStacks(facts.build)
	if *compare != "" {
		if len(rest) != 1 {
			return usagef("--compare takes two revisions, e.g. init --compare main HEAD")
		}
		for _, rev := range []string{*compare, rest[0]} {
			if _, err := plan.ResolveGit(env.Dir, rev); err != nil {
				return usagef("--compare %s: %v", rev, err)
			}
		}
		stacks, rest = plan.CompareStacks(*compare, rest[0], facts.build), nil
	}
	if len(rest) > 0 {
		return usagef("unexpected argument %q; init writes stackbench.yaml in the current directory", rest[0])
	}
	if *saas && (*compare != "" || *openapi != "" || *accessLog != "") {
		return usagef("--saas-slice writes the built-in workload's file; it does not go with --compare, --openapi or --access-log")
	}
	if *openapi != "" && *accessLog != "" {
		return usagef("--openapi and --access-log both write the cases; choose one")
	}
	if *top < 1 || *top > load.MaxMixRoutes {
		return usagef("--top %d: want 1 to %d routes", *top, load.MaxMixRoutes)
	}
	content := plan.StarterYAML
	if !*saas {
		var cases []plan.StarterCase
		if *openapi != "" {
			if cases, err = openAPICases(ctx, resolvePath(env, *openapi)); err != nil {
				return usagef("%v", err)
			}
		}
		var casesNode *yaml.Node
		if *accessLog != "" {
			var notes []string
			if casesNode, notes, err = accessLogCases(resolvePath(env, *accessLog), *top); err != nil {
				return usagef("%v", err)
			}
			for _, n := range notes {
				fmt.Fprintf(env.Stdout, "left out: %s\n", n)
			}
		}
		if content, err = plan.AppStarter(plan.StarterApp{Name: appName(env.Dir), Health: facts.health, HealthNote: facts.healthNote,
			Schema: facts.schema, SchemaNote: facts.schemaNote, Stacks: stacks, Cases: cases, CasesNode: casesNode, OwnDatabase: facts.build.Migrate != ""}); err != nil {
			return err
		}
	}
	path := filepath.Join(env.Dir, "stackbench.yaml")
	if err := writeStarter(path, content, *force); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "wrote %s\nnext: edit its stacks, check it with 'stackbench plan', then 'stackbench run'\n", path)
	return nil
}

// appName is a workload name from the app's directory.
func appName(dir string) string {
	name := strings.Trim(nonName.ReplaceAllString(filepath.Base(dir), "-"), "-._")
	if name == "" || slices.Contains(workload.Names(), name) {
		return "my-app"
	}
	return name
}

func writeStarter(path, content string, force bool) error {
	flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if !force {
		flags = os.O_WRONLY | os.O_CREATE | os.O_EXCL
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return usagef("%s already exists; edit it, or pass --force to replace it with the starter", path)
	}
	if err != nil {
		return fmt.Errorf("write starter file: %w", err)
	}
	if _, err := f.WriteString(content); err != nil {
		f.Close()
		return fmt.Errorf("write starter file %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write starter file %s: %w", path, err)
	}
	return nil
}

// runInitTFB is `init --tfb DIR [DIR...]`: stackbench.yaml with one stack
// per chosen variant of each TFB entry, in the order given.
func runInitTFB(env Env, dirs []string, variants string, container, force, other bool) error {
	if other {
		return usagef("--tfb writes a file of its own; it does not go with --saas-slice, --compare or --openapi")
	}
	var names []string
	if variants != "" {
		for _, v := range strings.Split(variants, ",") {
			if v = strings.TrimSpace(v); v != "" {
				names = append(names, v)
			}
		}
	}
	path, err := writeTFBStarter(dirs, func(d string) string { return resolvePath(env, d) }, names, container, env.Dir, force, func(w string) { fmt.Fprintln(env.Stderr, "warning: "+w) })
	if err != nil {
		var ue *UsageError
		if errors.As(err, &ue) {
			return err
		}
		return usagef("%v", err)
	}
	fmt.Fprintf(env.Stdout, "wrote %s\nnext: confirm each stack's build and start (read from its Dockerfile), check the file with 'stackbench plan', then 'stackbench parity'\n", path)
	return nil
}
