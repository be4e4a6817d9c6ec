package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/stackbench/stackbench/internal/plan"
)

// fastAPIApp finds a FastAPI (or Starlette) application object: app = FastAPI(…).
var fastAPIApp = regexp.MustCompile(`(?m)^([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(?:FastAPI|Starlette)\(`)

// pyEnvVar finds what a Python program reads from its environment.
var pyEnvVar = regexp.MustCompile(`os\.(?:environ\.get|getenv)\(\s*['"]([A-Z][A-Z0-9_]*)['"]|os\.environ\[['"]([A-Z][A-Z0-9_]*)['"]\]`)

// pythonBuild reads a Python app: Django (manage.py) or FastAPI/Starlette
// (an app object, served by uvicorn), its dependencies' install, and its
// migrations (manage.py migrate, alembic upgrade head). ok is false when
// dir holds neither.
func pythonBuild(dir string) (sb plan.StarterBuild, ok bool) {
	sources := sourceFiles(dir, []string{".py"}, 1000)
	sb.Runtime = "python"
	sb.Build, sb.BuildNote = pythonInstall(dir)
	switch {
	case fileIn(dir, "manage.py"):
		project := djangoProject(sources)
		if project != "" && requires(dir, "gunicorn") {
			sb.Start, sb.StartNote = "gunicorn "+project+".wsgi -b 127.0.0.1:$PORT", "Django (manage.py) under gunicorn, a dependency"
		} else {
			sb.Start, sb.StartNote = "python manage.py runserver 127.0.0.1:$PORT --noreload", "a guess: Django (manage.py) on its development server; gunicorn or uvicorn is what production runs"
		}
		sb.Migrate, sb.MigrateNote = "python manage.py migrate", "Django (manage.py)"
	default:
		module, obj := "", ""
		for _, src := range sources {
			if m := fastAPIApp.FindSubmatch(src.text); m != nil {
				module, obj = strings.ReplaceAll(strings.TrimSuffix(src.name, ".py"), "/", "."), string(m[1])
				break
			}
		}
		if module == "" {
			return sb, false
		}
		sb.Start, sb.StartNote = "uvicorn "+module+":"+obj+" --host 127.0.0.1 --port $PORT", "the FastAPI app "+obj+" in "+strings.ReplaceAll(module, ".", "/")+".py, under uvicorn"
		if fileIn(dir, "alembic.ini") {
			sb.Migrate, sb.MigrateNote = "alembic upgrade head", "alembic.ini is here"
		}
	}
	if sb.Migrate == "" && fileIn(dir, "alembic.ini") {
		sb.Migrate, sb.MigrateNote = "alembic upgrade head", "alembic.ini is here"
	}
	var db envSource
	for _, src := range sources {
		for _, m := range pyEnvVar.FindAllSubmatch(src.text, -1) {
			if name := string(m[1]) + string(m[2]); db.name == "" && dbVarName.MatchString(name) {
				db = envSource{name, src.name}
			}
		}
	}
	if db.name != "" && db.name != "DATABASE_URL" {
		sb.Start = db.name + "=$DATABASE_URL " + sb.Start
		sb.StartNote += "; its database URL from " + db.name + " (" + db.file + ")"
	}
	sb.Migrate = withDatabaseVar(sb.Migrate, db)
	return sb, true
}

// pythonInstall is how a Python app's dependencies are installed.
func pythonInstall(dir string) (string, string) {
	switch {
	case fileIn(dir, "uv.lock"):
		return "uv sync --frozen", "uv (from uv.lock)"
	case fileIn(dir, "poetry.lock"):
		return "poetry install --no-root", "poetry (from poetry.lock)"
	case fileIn(dir, "requirements.txt"):
		return "pip install -r requirements.txt", "requirements.txt; a guess: into the active environment"
	}
	return "pip install .", "a guess: no lockfile or requirements.txt"
}

// requires reports whether a Python app lists dep among its dependencies.
func requires(dir, dep string) bool {
	for _, f := range []string{"requirements.txt", "pyproject.toml", "Pipfile"} {
		if b, err := os.ReadFile(filepath.Join(dir, f)); err == nil && regexp.MustCompile(`(?mi)^\s*["']?`+regexp.QuoteMeta(dep)+`\b`).Match(b) {
			return true
		}
	}
	return false
}

// djangoProject is the package of a Django project's wsgi.py.
func djangoProject(sources []goSource) string {
	for _, src := range sources {
		if filepath.Base(src.name) == "wsgi.py" {
			return strings.ReplaceAll(filepath.Dir(src.name), "/", ".")
		}
	}
	return ""
}
