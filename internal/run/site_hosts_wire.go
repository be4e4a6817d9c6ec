package run

import (
	"cmp"
	"context"
	"fmt"
	"net"
	"os"
	"strconv"

	"github.com/stackbench/stackbench/internal/agent"
	"github.com/stackbench/stackbench/internal/load/grpcmsg"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/stack"
	"github.com/stackbench/stackbench/internal/workload"
)

// The wire across hosts: what the server host and the generator hosts are
// sent so that a stack that is not HTTP/1.1 in cleartext is served and
// loaded there as it is here. The run's certificate is made valid for the
// server host's address too (hostsPhase.open); the server host's agent
// gets the certificate and its key for each process it starts, and every
// generator host, with each window, the CA and, for a gRPC stack, the
// method's descriptors resolved here.

// serverWire fills in what the server host's agent needs to start and
// health-check st over its wire: the health check's protocol, and for a
// stack with TLS the run's certificate and key (written there, mode 0600,
// while the process runs) and the CA the health check trusts.
func (h *hostsSite) serverWire(st plan.Stack, spec *agent.StartSpec) error {
	spec.HealthProtocol = st.Wire.Protocol
	if !st.Wire.TLS {
		return nil
	}
	files, err := stack.TLSFiles(logsDir(h.p.opt.Dir))
	if err != nil {
		return fmt.Errorf("stack %s has tls: on: %w", st.Name, err)
	}
	read := map[string][]byte{}
	for _, f := range []string{files.CAFile, files.CertFile, files.KeyFile} {
		if read[f], err = os.ReadFile(f); err != nil {
			return fmt.Errorf("stack %s has tls: on: %w", st.Name, err)
		}
	}
	spec.HealthCA = read[files.CAFile]
	spec.TLS = &agent.ServerTLS{CertPEM: read[files.CertFile], KeyPEM: read[files.KeyFile], CertEnv: plan.TLSCertEnv, KeyEnv: plan.TLSKeyEnv}
	return nil
}

// windowFiles are the files every generator host is sent with a window of
// case c on cur (agent.LoadSpec, its Args left to each generator): an HTTP
// case's request pool, a flow case's flow, a templated gRPC case's messages and metadata, the run's CA for
// a stack with TLS, and a gRPC stack's descriptors of the case's method.
func (h *hostsSite) windowFiles(ctx context.Context, cur *server, c workload.Case) (agent.LoadSpec, error) {
	r, st := h.p, cur.stack
	var spec agent.LoadSpec
	var path, metadata string
	var err error
	if st.Wire.GRPC() {
		if spec.Descriptors, err = h.descriptors(ctx, cur, c.GRPC.Method); err != nil {
			return spec, err
		}
		path, metadata, err = r.pools.grpcFiles(cur, c)
	} else if c.IsFlow() {
		// Every generator host runs the same flow, each its own users
		// (remoteWindow.drive numbers them).
		if path, err = r.pools.of(cur, c); err == nil {
			spec.Flow, err = os.ReadFile(path)
			path = ""
		}
	} else {
		// Every generator host sends from the same pool.
		path, err = r.pools.of(cur, c)
	}
	if err == nil && path != "" {
		pool := &spec.Requests
		if st.Wire.GRPC() {
			pool = &spec.Messages
		}
		*pool, err = os.ReadFile(path)
	}
	if err == nil && metadata != "" {
		spec.Metadata, err = os.ReadFile(metadata)
	}
	if err != nil {
		return spec, err
	}
	if st.Wire.TLS {
		spec.CACert, err = h.caPEM()
	}
	return spec, err
}

// caPEM is the run's throwaway CA, read once.
func (h *hostsSite) caPEM() ([]byte, error) {
	if h.ca == nil {
		files, err := stack.TLSFiles(logsDir(h.p.opt.Dir))
		if err != nil {
			return nil, err
		}
		if h.ca, err = os.ReadFile(files.CAFile); err != nil {
			return nil, err
		}
	}
	return h.ca, nil
}

// descriptors are method's descriptors on cur's stack, serialized
// (grpcmsg.Method.DescriptorSet) for the generator hosts: from the
// stack's proto: file, or with proto: reflect by server reflection of cur
// at the server host's address (127.0.0.1 when it runs here), over the
// stack's wire. They are found
// once per stack and method in an invocation, before the first window
// that needs them.
func (h *hostsSite) descriptors(ctx context.Context, cur *server, method string) ([]byte, error) {
	st := cur.stack
	key := st.Name + " " + method
	if b, ok := h.described[key]; ok {
		return b, nil
	}
	var m *grpcmsg.Method
	var err error
	if file := st.ProtoFile(); file != "" {
		if m, err = grpcmsg.Load(file, method); err != nil {
			return nil, fmt.Errorf("stack %s: proto %s: %w", st.Name, st.Wire.Proto, err)
		}
	} else {
		var ca []byte
		if st.Wire.TLS {
			if ca, err = h.caPEM(); err != nil {
				return nil, err
			}
		}
		name, host := h.serverHost()
		addr := net.JoinHostPort(host, strconv.Itoa(cur.tree.Port()))
		if m, err = grpcmsg.Reflect(ctx, addr, st.Wire.TLS, ca, method); err != nil {
			return nil, fmt.Errorf("stack %s on %s: %w", st.Name, cmp.Or(name, "this machine"), err)
		}
	}
	b, err := m.DescriptorSet()
	if err != nil {
		return nil, fmt.Errorf("stack %s: the descriptors of %s: %w", st.Name, method, err)
	}
	if h.described == nil {
		h.described = map[string][]byte{}
	}
	h.described[key] = b
	return b, nil
}
