// Package profiling is the maths of the profiling phase, free of I/O
// beyond reading and writing profiles: perf script's text converted to
// pprof profiles, profiles summarised per request (each function's
// CPU-µs, bytes and objects per successful response of the window), and a
// step explained as the functions, packages and groups whose per-request
// cost changed most (docs/profiles.md).
//
// Profiles are github.com/google/pprof/profile values throughout, so the
// files a run keeps open in `go tool pprof` and compare with -diff_base.
package profiling
