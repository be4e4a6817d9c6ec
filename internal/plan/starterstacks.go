package plan

import "go.yaml.in/yaml/v3"

// StarterBuild is how a starter builds and starts the app: what init
// found in the repository, each with a comment saying so or that it is a
// guess. The zero value is the usual placeholder.
type StarterBuild struct {
	// Build and Start are the commands; BuildNote and StartNote their
	// comments.
	Build, BuildNote string
	Start, StartNote string
	// Runtime is the stack's runtime: (node, python…); empty for none.
	Runtime string
	// Base is the stack's base path (an OpenAPI document's servers:),
	// BaseNote where it came from; empty for none.
	Base, BaseNote string
	// Migrate is the command that applies the app's migrations (the
	// stack's database: migrate:), MigrateNote where it was found; empty
	// when none was.
	Migrate, MigrateNote string
}

func (sb StarterBuild) orDefault() StarterBuild {
	if sb.Build == "" {
		sb.Build, sb.BuildNote = "go build -o bin/app .", "your build command, or remove the line"
	}
	if sb.Start == "" {
		sb.Start, sb.StartNote = "./bin/app", "must listen on 127.0.0.1:$PORT"
	}
	return sb
}

// StarterStack is one stack of a starter file: its name, the git
// revision it runs (empty: the working tree) and how it is built, started
// and served.
type StarterStack struct {
	Name  string
	Git   string
	Build StarterBuild
}

// AppStacks is a starter's stacks: the app in this directory, built and
// started as sb says.
func AppStacks(sb StarterBuild) []StarterStack {
	return []StarterStack{{Name: "app", Build: sb.orDefault()}}
}

// CompareStacks is a starter's stacks for two revisions of the
// repository in this directory: each built, started and served as sb
// says (its base path, runtime and own database included), in a worktree
// of its commit, in one interleaved run.
func CompareStacks(from, to string, sb StarterBuild) []StarterStack {
	sb = sb.orDefault()
	return []StarterStack{{Name: sanitize(from), Git: from, Build: sb}, {Name: sanitize(to), Git: to, Build: sb}}
}

// node is the stack as a YAML mapping.
func (s StarterStack) node() *yaml.Node {
	sb := s.Build
	n := mapNode()
	addScalar(n, "name", s.Name, "")
	addScalar(n, "dir", ".", "")
	if s.Git != "" {
		addScalar(n, "git", s.Git, "built and started in a worktree of this commit")
	}
	addScalar(n, "build", sb.Build, sb.BuildNote)
	addScalar(n, "start", sb.Start, sb.StartNote)
	if sb.Base != "" {
		addScalar(n, "base", sb.Base, "every path goes under it; "+sb.BaseNote)
	}
	if sb.Runtime != "" {
		addScalar(n, "runtime", sb.Runtime, "a JIT runtime gets the longer warm-up")
	}
	if sb.Migrate != "" {
		db := mapNode()
		addScalar(db, "migrate", sb.Migrate, sb.MigrateNote+"; run here with DATABASE_URL set")
		addNode(n, "database", db, "this stack's own template: migrations run once, before anything is measured")
		db.Content[len(db.Content)-1].FootComment = "seed: db/seed.sql       # a SQL file or a command, after the migrations\n" +
			"reset: \"TRUNCATE comments\"   # before each window of a case with inserts: true"
	}
	return n
}
