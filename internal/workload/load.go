package workload

import "github.com/stackbench/stackbench/internal/load"

// LoadConfig is the load generator's Config for the case's request against
// baseURL (http://host:port): method, path, headers, body and the statuses
// that count as success. Connections, durations and the rest are the
// caller's.
func (c Case) LoadConfig(baseURL string) load.Config {
	cfg := load.Config{URL: baseURL + c.Path, Method: c.Method, Body: c.Body, Expect: c.Expect}
	for _, h := range c.Header {
		cfg.Headers = append(cfg.Headers, load.Header{Name: h.Name, Value: h.Value})
	}
	return cfg
}

// LoadRequest is r as one entry of a load generator's request pool.
func (r Request) LoadRequest() load.Request {
	lr := load.Request{Method: r.Method, Path: r.Path, Body: string(r.Body)}
	if len(r.Header) > 0 {
		lr.Headers = map[string]string{}
		for _, h := range r.Header {
			lr.Headers[h.Name] = h.Value
		}
	}
	return lr
}
