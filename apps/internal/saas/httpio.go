package saas

import "net/http"

// WriteResponse writes resp on a net/http ResponseWriter with Content-Type
// ContentType. Routers built on net/http (chi, gin, echo) use it, so their
// servers write exactly what NetHTTPHandler writes.
func WriteResponse(w http.ResponseWriter, resp Response) { writeResponse(w, resp) }

// ReadBody reads at most MaxBodyBytes of a net/http request body; on
// failure it answers 413 or 400 itself and returns false.
func ReadBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) { return readBody(w, r) }
