package run

import (
	"net/url"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/stackbench/stackbench/internal/plan"
)

// redactedValue stands for a secret env: value in the journal and
// results.json.
const redactedValue = "[redacted]"

// publicEnv are env: names whose values the journal always keeps:
// runtimes' tuning knobs, which say how a stack ran and hold no secret.
var publicEnv = map[string]bool{
	"GOGC": true, "GOMAXPROCS": true, "GOMEMLIMIT": true, "GODEBUG": true,
	"NODE_ENV": true, "NODE_OPTIONS": true, "UV_THREADPOOL_SIZE": true, "WEB_CONCURRENCY": true,
	"MALLOC_ARENA_MAX": true, "GIN_MODE": true,
}

// secretName matches the name of a variable that holds a secret.
var secretName = regexp.MustCompile(`(?i)(KEY|SECRET|TOKEN|PASS|PWD|AUTH|CREDENTIAL|PRIVATE|SESSION|SALT|SIGN|COOKIE|DSN|CERT)`)

// secretEnv reports whether a stack's env: value is journaled as
// redactedValue: by its name (API_KEY, DB_PASSWORD, JWT_SECRET…), or by
// its value (a URL or DSN with a password; a long token: letters and
// digits, no space, slash or leading dash), unless the name is in
// publicEnv.
func secretEnv(name, value string) bool {
	if publicEnv[name] {
		return false
	}
	if secretName.MatchString(name) || strings.Contains(strings.ToLower(value), "password=") {
		return true
	}
	if u, err := url.Parse(value); err == nil && u.User != nil {
		if _, set := u.User.Password(); set {
			return true
		}
	}
	return tokenLike(value)
}

// tokenLike: at least 20 characters, letters and digits both, and no
// space, slash or leading dash (a path or a flag is not a token).
func tokenLike(v string) bool {
	if len(v) < 20 || strings.HasPrefix(v, "-") || strings.ContainsAny(v, " /\t") {
		return false
	}
	letter, digit := false, false
	for _, r := range v {
		letter = letter || unicode.IsLetter(r)
		digit = digit || unicode.IsDigit(r)
	}
	return letter && digit
}

// redactStackEnv replaces in spec (the journal's copy of the plan) each
// stack's secret env: values (secretEnv) by redactedValue, their names
// kept, so that a results directory shared as an artifact does not carry
// them. The other values stay, for the record and for the stack's
// fingerprint across runs (a pool size that changed is a changed stack).
// The maps are new: the plan's own, which the run starts its stacks with
// (and a resume re-reads from the comparison file), are untouched.
func redactStackEnv(spec plan.Plan) plan.Plan {
	spec.Stacks = slices.Clone(spec.Stacks)
	for i := range spec.Stacks {
		env := spec.Stacks[i].Env
		if len(env) == 0 {
			continue
		}
		shown := make(map[string]string, len(env))
		for k, v := range env {
			if secretEnv(k, v) {
				v = redactedValue
			}
			shown[k] = v
		}
		spec.Stacks[i].Env = shown
	}
	return spec
}
