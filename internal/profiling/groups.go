package profiling

import (
	"path/filepath"
	"strconv"
	"strings"
)

// The groups a function falls in (Group), beside its package.
const (
	GroupKernel   = "kernel"
	GroupRuntime  = "runtime/GC"
	GroupDriver   = "database driver"
	GroupJSON     = "JSON"
	GroupYours    = "your code"
	GroupStdlib   = "standard library"
	GroupLibrary  = "libraries"
	GroupDatabase = "PostgreSQL"
	GroupOther    = "other"
)

// driverPackages and jsonPackages are package path prefixes (Go) and
// symbol prefixes (other runtimes) of the database drivers and JSON
// codecs the symbol names.
var (
	driverPackages = []string{"github.com/jackc/pgx", "github.com/jackc/pgconn", "github.com/jackc/pgproto3", "github.com/jackc/puddle",
		"github.com/lib/pq", "database/sql", "gorm.io/", "github.com/uptrace/bun"}
	jsonPackages = []string{"encoding/json", "github.com/goccy/go-json", "github.com/json-iterator/go", "github.com/bytedance/sonic",
		"github.com/mailru/easyjson", "github.com/segmentio/encoding/json"}
	// runtimeSymbols are the prefixes of a JavaScript runtime's own
	// frames (V8's and Node's C++, V8's builtins and stubs) in its binary.
	runtimeSymbols = []string{"v8::", "Builtins_", "node::", "uv_", "Stub:", "Builtin:", "BytecodeHandler:", "JavaScriptCore::", "WTF::", "bmalloc::", "Zig::"}
	jsSymbols      = []string{"JsonStringify", "JsonParse", "JSON.", "Builtins_JsonParse", "Builtins_JsonStringify"}
)

// Package is the package (Go) or binary a function belongs to: the Go
// import path before the function's name ("crypto/sha256" of
// "crypto/sha256.Sum256"), and for a symbol that is not Go's, the base
// name of its binary ("libc.so.6", "[kernel.kallsyms]").
func Package(name, binary string) string {
	if filepath.Base(binary) == KernelMapping {
		return KernelMapping
	}
	if script, ok := jsScript(name); ok {
		return script
	}
	if pkg, ok := goPackage(name); ok {
		return pkg
	}
	if binary == "" {
		return "?"
	}
	return filepath.Base(binary)
}

// goPackage cuts a Go symbol's package path off its name.
func goPackage(name string) (string, bool) {
	if strings.ContainsAny(name, " :<>") {
		return "", false
	}
	head := name
	if i := strings.IndexByte(head, '['); i >= 0 { // type arguments hold dots and slashes
		head = head[:i]
	}
	start := strings.LastIndexByte(head, '/') + 1
	dot := strings.IndexByte(head[start:], '.')
	if dot <= 0 {
		return "", false
	}
	return head[:start+dot], true
}

// Group is the group of a function: GroupKernel for the kernel's frames,
// GroupRuntime for Go's runtime (allocation and GC included), GroupDriver
// and GroupJSON by package, GroupDatabase for the PostgreSQL binary,
// GroupYours for package main and for Go code built from source outside
// the module cache and GOROOT (file names the profile records), then the
// standard library, other Go modules (libraries), and anything else.
func Group(name, file, binary string) string { return groupOf(name, file, binary, nil) }

// MainModuleComment starts a profile comment naming the main module of a
// Go binary the profile sampled ("go-main-module=example.com/api"):
// perf's profiles have no source file names, so this is how their
// functions are known as "your code".
const MainModuleComment = "go-main-module="

// groupOf is Group with the main modules of the profile's Go binaries:
// their packages are "your code" too.
func groupOf(name, file, binary string, own []string) string {
	base := filepath.Base(binary)
	switch {
	case binary == KernelMapping || base == KernelMapping:
		return GroupKernel
	case base == "postgres":
		return GroupDatabase
	}
	if script, ok := jsScript(name); ok {
		switch {
		case strings.Contains(script, "/node_modules/"):
			return GroupLibrary
		case strings.HasPrefix(script, "node:"):
			return GroupStdlib
		}
		return GroupYours
	}
	pkg, isGo := goPackage(name)
	if !isGo {
		for _, s := range jsSymbols {
			if strings.Contains(name, s) {
				return GroupJSON
			}
		}
		if isRuntimeBinary(base) && hasAnyPrefix(name, runtimeSymbols) {
			return GroupRuntime
		}
		return GroupOther
	}
	switch {
	case pkg == "runtime" || strings.HasPrefix(pkg, "runtime/") || strings.HasPrefix(pkg, "internal/runtime/"):
		return GroupRuntime
	case hasPrefix(pkg, driverPackages):
		return GroupDriver
	case hasPrefix(pkg, jsonPackages):
		return GroupJSON
	case pkg == "main" || hasPrefix(pkg, own):
		return GroupYours
	}
	first, _, _ := strings.Cut(pkg, "/")
	stdlib := !strings.Contains(first, ".")
	switch {
	case stdlib:
		return GroupStdlib
	case file != "" && !strings.Contains(filepath.ToSlash(file), "/pkg/mod/") && strings.HasSuffix(file, ".go"):
		return GroupYours
	default:
		return GroupLibrary
	}
}

func hasPrefix(pkg string, prefixes []string) bool {
	for _, p := range prefixes {
		if pkg == p || strings.HasPrefix(pkg, strings.TrimSuffix(p, "/")+"/") || (strings.HasSuffix(p, "/") && strings.HasPrefix(pkg, p)) {
			return true
		}
	}
	return false
}

// jsScript is the script of a JavaScript frame that V8 named for perf
// (--perf-basic-prof): "JS:*handler /app/server.js:3:17" is in
// /app/server.js (the mark before the name says how V8 compiled it).
func jsScript(name string) (string, bool) {
	rest, ok := strings.CutPrefix(name, "JS:")
	if !ok {
		return "", false
	}
	i := strings.LastIndexByte(rest, ' ')
	if i < 0 {
		return "", false
	}
	loc := rest[i+1:]
	// Cut ":line:column".
	for range 2 {
		if j := strings.LastIndexByte(loc, ':'); j > 0 {
			if _, err := strconv.Atoi(loc[j+1:]); err == nil {
				loc = loc[:j]
			}
		}
	}
	if loc == "" {
		return "", false
	}
	return loc, true
}

// isRuntimeBinary is true for the binaries of the JavaScript runtimes.
func isRuntimeBinary(base string) bool {
	return base == "node" || base == "bun" || base == "deno" || strings.HasPrefix(base, "perf-") // JIT maps hold V8's stubs too
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
