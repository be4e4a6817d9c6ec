package cli

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// dockerGuess is what a TFB variant's Dockerfile says about building and
// starting it, read line by line and never run: a guess for a native
// stack, to be confirmed by the user.
type dockerGuess struct {
	// Build are the RUN commands kept, in order; Skipped the ones left out
	// (system package installs, which would change the user's machine).
	Build, Skipped []string
	// Start is CMD (after ENTRYPOINT, if any), as a shell command.
	Start string
	// Env are the ENV settings, in order.
	Env [][2]string
	// From are the base images; Workdir the last WORKDIR (a path inside
	// the image, which the native stack does not have).
	From    []string
	Workdir string
}

// systemInstall matches a RUN command that installs system packages.
var systemInstall = regexp.MustCompile(`(^|[;&|]\s*)(sudo\s+)?(apt-get|apt|apk|yum|dnf|microdnf|zypper|pacman)\s`)

// maxDockerfileBytes bounds a Dockerfile read.
const maxDockerfileBytes = 256 << 10

// parseDockerfile reads the instructions of a Dockerfile: continuation
// lines joined, comments dropped, RUN/CMD/ENTRYPOINT in either form.
func parseDockerfile(data []byte) (dockerGuess, error) {
	var g dockerGuess
	if len(data) > maxDockerfileBytes {
		return g, fmt.Errorf("%d bytes; a Dockerfile is a few kilobytes", len(data))
	}
	var entrypoint, cmd string
	for _, ins := range dockerInstructions(string(data)) {
		word, rest, _ := strings.Cut(ins, " ")
		rest = strings.TrimSpace(rest)
		switch strings.ToUpper(word) {
		case "FROM":
			if f := strings.Fields(rest); len(f) > 0 {
				g.From = append(g.From, f[0])
			}
		case "WORKDIR":
			g.Workdir = rest
		case "RUN":
			c := shellForm(rest)
			if systemInstall.MatchString(c) {
				g.Skipped = append(g.Skipped, c)
			} else {
				g.Build = append(g.Build, c)
			}
		case "CMD":
			cmd = shellForm(rest)
		case "ENTRYPOINT":
			entrypoint = shellForm(rest)
		case "ENV":
			g.Env = append(g.Env, envPairs(rest)...)
		}
	}
	g.Start = strings.TrimSpace(entrypoint + " " + cmd)
	return g, nil
}

// dockerInstructions splits a Dockerfile into instructions: comment lines
// dropped, lines ending in a backslash joined with the next.
func dockerInstructions(src string) []string {
	var out []string
	var cur strings.Builder
	for _, line := range strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "#") {
			continue
		}
		if strings.HasSuffix(t, "\\") {
			cur.WriteString(strings.TrimSuffix(t, "\\") + " ")
			continue
		}
		cur.WriteString(t)
		if s := strings.TrimSpace(cur.String()); s != "" {
			out = append(out, strings.Join(strings.Fields(s), " "))
		}
		cur.Reset()
	}
	if s := strings.TrimSpace(cur.String()); s != "" {
		out = append(out, s)
	}
	return out
}

// shellForm turns an exec-form argument list (["node", "app.js"]) into a
// shell command; a shell form is returned as written.
func shellForm(s string) string {
	var args []string
	if strings.HasPrefix(s, "[") && json.Unmarshal([]byte(s), &args) == nil {
		for i, a := range args {
			args[i] = shellQuote(a)
		}
		return strings.Join(args, " ")
	}
	return s
}

// shellQuote quotes a word for /bin/sh when it needs it.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`&|;<>()*?[]#~{}!") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// envPairs reads an ENV instruction's settings: KEY=VALUE … or KEY VALUE.
func envPairs(rest string) [][2]string {
	if k, v, ok := strings.Cut(rest, " "); ok && !strings.Contains(k, "=") {
		return [][2]string{{k, unquote(strings.TrimSpace(v))}}
	}
	var out [][2]string
	for _, f := range quotedFields(rest) {
		if k, v, ok := strings.Cut(f, "="); ok {
			out = append(out, [2]string{k, unquote(v)})
		}
	}
	return out
}

// quotedFields splits s at spaces outside single or double quotes.
func quotedFields(s string) []string {
	var out []string
	var cur strings.Builder
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '"' || r == '\'':
			quote = r
		case r == ' ' || r == '\t':
			if cur.Len() > 0 {
				out = append(out, cur.String())
				cur.Reset()
			}
			continue
		}
		cur.WriteRune(r)
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"' || s[0] == '\'' && s[len(s)-1] == '\'') {
		return s[1 : len(s)-1]
	}
	return s
}
