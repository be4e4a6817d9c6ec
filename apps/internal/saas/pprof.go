package saas

import (
	"net/http"
	"net/http/pprof"
	"strings"
)

// PprofPath is where the Go reference servers serve net/http/pprof, on
// their own port: a stack's pprof: key names it, and stackbench's
// profiling phase reads the CPU and allocation profiles there. It costs
// nothing until a profile is asked for: one prefix check per request, and
// handlers that sit idle.
const PprofPath = "/debug/pprof/"

// withPprof serves net/http/pprof under PprofPath and everything else
// with h. The handlers are mounted on a mux of their own, not
// http.DefaultServeMux, so a server's routes stay its own.
func withPprof(h http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc(PprofPath, pprof.Index)
	mux.HandleFunc(PprofPath+"cmdline", pprof.Cmdline)
	mux.HandleFunc(PprofPath+"profile", pprof.Profile)
	mux.HandleFunc(PprofPath+"symbol", pprof.Symbol)
	mux.HandleFunc(PprofPath+"trace", pprof.Trace)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, PprofPath) {
			mux.ServeHTTP(w, r)
			return
		}
		h.ServeHTTP(w, r)
	})
}
