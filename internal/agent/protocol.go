// Package agent is stackbench's agent on another host and the coordinator's
// client of it. The coordinator starts `stackbench agent` over SSH
// (internal/remote) and the two talk a small versioned protocol of JSON
// lines on the session's stdin and stdout: one Request per line from the
// coordinator, one Response per line back, matched by ID. The agent listens
// on no port of its own, and when its stdin closes (the session dropped, or
// the coordinator is done) it stops every process it started.
//
// The first request must be a hello; a hello whose Version differs from the
// agent's is refused naming both versions, and the client refuses an agent
// that answers with another version, so a coordinator never drives an agent
// it does not understand.
package agent

import (
	"encoding/json"
	"time"
)

// Version is the protocol's version. Change it whenever a request or a
// response changes meaning. Version 3 carries the wires other than
// HTTP/1.1 in cleartext: a server's certificate and key and its health
// check's protocol and CA (StartSpec), and a window's CA and gRPC
// descriptors and messages (LoadSpec); and perf on a started tree
// (PerfSpec). Version 4 carries a window's gRPC metadata (LoadSpec) and the
// ports of a stack's services: to sample (SampleSpec): an agent of version
// 3 would drop them and send the calls without, or leave the services out.
// Version 5 carries a container stack: the container's runtime and image
// (StartSpec.Container), the image built or checked on the agent's host
// (OpImage), and the runtime's CPU apart in a sample (Sample.Runtime): an
// agent of version 4 would run the container's arguments as a native
// command, so either side refuses the other at hello, naming both
// versions. Version 6 carries a flow case's flow (LoadSpec.Flow): an
// agent of version 5 would drop it and load the server's base URL
// instead.
const Version = 6

// Operations a Request names in Op.
const (
	OpHello    = "hello"
	OpClock    = "clock"
	OpFreePort = "free_port"
	OpPostgres = "postgres"
	OpStart    = "start"
	OpStop     = "stop"
	OpSample   = "sample"
	OpLoad     = "load"
	// OpPerf records a started tree with perf (perf.go; version 3).
	OpPerf = "perf"
	// OpImage builds or checks a container stack's image on the agent's
	// host (container.go; version 5).
	OpImage = "image"
	// OpRemoveContainer removes a container an earlier session started
	// and could not remove (its agent was killed): a resume asks for it
	// (version 5).
	OpRemoveContainer = "remove_container"
)

// Operations of a directory sync (sync.go): open, then manifests and the
// chunks of the files the agent asked for, then close.
const (
	OpSyncOpen     = "sync_open"
	OpSyncManifest = "sync_manifest"
	OpSyncChunk    = "sync_chunk"
	OpSyncClose    = "sync_close"
)

// Operations of the embedded database on the agent's host (database.go).
const (
	OpDatabase     = "database"
	OpDatabaseStop = "database_stop"
)

// Request is one line from the coordinator.
type Request struct {
	ID int64  `json:"id"`
	Op string `json:"op"`
	// Version is the coordinator's protocol version (hello).
	Version int `json:"version,omitempty"`
	// Start is what to start (start).
	Start *StartSpec `json:"start,omitempty"`
	// Name names a process the agent started (stop, sample).
	Name string `json:"name,omitempty"`
	// From and To are the wall-clock instants, on the agent's clock, that
	// bound a sample (sample).
	From time.Time `json:"from,omitzero"`
	To   time.Time `json:"to,omitzero"`
	// Ports are the TCP ports of a stack's services (sample): the process
	// trees that listen on them are sampled with the tree, apart.
	Ports []int `json:"ports,omitempty"`
	// Load is the load window to run (load).
	Load *LoadSpec `json:"load,omitempty"`
	// Sync is one step of a directory sync (sync_open, sync_manifest,
	// sync_chunk, sync_close).
	Sync *SyncRequest `json:"sync,omitempty"`
	// Database is the embedded cluster to start (database).
	Database *DatabaseSpec `json:"database,omitempty"`
	// Perf is the tree and the window to record (perf).
	Perf *PerfSpec `json:"perf,omitempty"`
	// Image is the container image to build or check (image).
	Image *ImageSpec `json:"image,omitempty"`
	// Container is the container to remove (remove_container).
	Container *ContainerRef `json:"container,omitempty"`
}

// Response is one line from the agent. Error is set when the request
// failed; the other fields belong to the request's operation.
type Response struct {
	ID    int64  `json:"id"`
	Error string `json:"error,omitempty"`
	// Hello is the agent's side of a hello.
	Hello *Hello `json:"hello,omitempty"`
	// Now is the agent's wall clock when it read the request (clock).
	Now time.Time `json:"now,omitzero"`
	// Port is a TCP port the agent could bind on every address (free_port).
	Port int `json:"port,omitempty"`
	// Postgres is the directory of the PostgreSQL server binaries and how
	// it was found (postgres).
	Postgres string `json:"postgres,omitempty"`
	// PID is the root of a started tree (start).
	PID int `json:"pid,omitempty"`
	// Boot is spawn → first 200 on the health path (start).
	Boot time.Duration `json:"boot_ns,omitempty"`
	// Sample is the CPU and memory of a tree between two instants (sample).
	Sample *Sample `json:"sample,omitempty"`
	// Result is `stackbench load -o json`'s result as the generator
	// printed it (load).
	Result json.RawMessage `json:"result,omitempty"`
	// Sync is the agent's side of a directory sync step.
	Sync *SyncReply `json:"sync,omitempty"`
	// Database is the embedded cluster the agent started (database).
	Database *DatabaseInfo `json:"database,omitempty"`
	// Profile is a perf profile, gzipped pprof (perf).
	Profile []byte `json:"profile,omitempty"`
	// Runtime is the container runtime the agent found on its host
	// (image).
	Runtime string `json:"runtime,omitempty"`
	// Container names the container a start runs the server in (start,
	// with StartSpec.Container).
	Container string `json:"container,omitempty"`
	// Removed says that remove_container found the container and
	// removed it.
	Removed bool `json:"removed,omitempty"`
}

// Hello is what an agent says about itself.
type Hello struct {
	Version int `json:"version"`
	// Binary is the SHA-256 of the agent's executable, hex: the
	// coordinator checks that it runs the binary it copied.
	Binary   string `json:"binary"`
	OS       string `json:"os"`
	Arch     string `json:"arch"`
	Hostname string `json:"hostname"`
	CPUs     int    `json:"cpus"`
}

// StartSpec is a process tree to start on the agent's host: Command runs
// with /bin/sh -c in Dir and must answer 200 on HealthPath at 127.0.0.1:Port
// within BootTimeout.
type StartSpec struct {
	Name       string   `json:"name"`
	Dir        string   `json:"dir"`
	Command    string   `json:"command"`
	Env        []string `json:"env,omitempty"`
	Port       int      `json:"port"`
	HealthPath string   `json:"health"`
	// HealthProtocol is how the health path is asked (proc.Spec's:
	// "" or "http1", "h2c", "h2", or "grpc" with HealthPath the method),
	// and HealthCA, when set, makes the request over TLS trusting that
	// CA (PEM). New in version 3.
	HealthProtocol string `json:"health_protocol,omitempty"`
	HealthCA       []byte `json:"health_ca,omitempty"`
	// TLS, when set, is the certificate the server serves, written in the
	// agent's run directory while the tree runs (new in version 3).
	TLS *ServerTLS `json:"tls,omitempty"`
	// LogPath names the server's log: a bare name, made a new file of
	// the agent user's own under ~/.cache/stackbench/logs.
	LogPath     string        `json:"log"`
	BootTimeout time.Duration `json:"boot_timeout_ns"`
	// Container, when set, runs the server in a container: Command is
	// then the container's arguments (the stack's start:, maybe empty),
	// and the agent runs it with the runtime's run command a local start
	// uses, names the container and measures it through its cgroup (new
	// in version 5).
	Container *ContainerSpec `json:"container,omitempty"`
}

// ContainerSpec is the container a StartSpec runs its server in.
type ContainerSpec struct {
	// Runtime is "docker" or "podman"; "" takes the first of them on
	// the agent's PATH.
	Runtime string `json:"runtime,omitempty"`
	Image   string `json:"image"`
}

// ContainerRef names a container on the agent's host: its runtime, its
// name (which starts with "stackbench-", as the agent names those it
// starts) and the environment the runtime's commands run with (the
// stack's env:, which may name the daemon).
type ContainerRef struct {
	Runtime string   `json:"runtime"`
	Name    string   `json:"name"`
	Env     []string `json:"env,omitempty"`
}

// ImageSpec is a container stack's image on the agent's host: built from
// Build (a Dockerfile, relative to Dir) and tagged Image, or, without
// Build, checked to be there. Env is the stack's env: (a DOCKER_HOST there
// names the daemon); LogPath names the build's log as StartSpec's does.
type ImageSpec struct {
	Stack   string   `json:"stack"`
	Dir     string   `json:"dir"`
	Runtime string   `json:"runtime,omitempty"`
	Image   string   `json:"image"`
	Build   string   `json:"build,omitempty"`
	Env     []string `json:"env,omitempty"`
	LogPath string   `json:"log,omitempty"`
}

// Sample is one tree's CPU and resident memory between two instants.
type Sample struct {
	Wall       time.Duration `json:"wall_ns"`
	CPUSeconds float64       `json:"cpu_s"`
	// Cores is CPUSeconds ÷ Wall.
	Cores        float64 `json:"cores"`
	RSSMeanBytes int64   `json:"rss_mean_bytes"`
	RSSPeakBytes int64   `json:"rss_peak_bytes"`
	// HostBusyCores is the busy CPU of the agent's whole host ÷ Wall.
	HostBusyCores float64 `json:"host_busy_cores"`
	// ForeignProcessCores is the CPU of every process on the agent's
	// host that none of the sample's trees nor the agent itself claims,
	// read process by process (and the host's steal) ÷ Wall;
	// ForeignTickCores is HostBusyCores less those trees and the agent,
	// floored at 0 (proc.WindowStats). Zero from agents before them.
	ForeignProcessCores float64 `json:"foreign_process_cores,omitempty"`
	ForeignTickCores    float64 `json:"foreign_tick_cores,omitempty"`
	// AgentCores is the agent's own CPU over the sample ÷ Wall: the
	// harness's overhead on that host, never foreign (trap T21).
	AgentCores float64 `json:"agent_cores,omitempty"`
	// Services are the trees listening on the request's Ports, summed;
	// nil when it named none.
	Services *ServicesSample `json:"services,omitempty"`
	// Runtime is, for a server in a container, the runtime's command
	// the agent started and the runtime's daemons on its host (dockerd,
	// containerd, the shims), summed: they work for the container without
	// being the server, so they are the harness's overhead there, apart
	// from CPUSeconds (which is the container's cgroup) and from foreign
	// CPU. Nil for a native server.
	Runtime *RuntimeSample `json:"runtime,omitempty"`
}

// RuntimeSample is what a container runtime used over a sample.
type RuntimeSample struct {
	CPUSeconds   float64 `json:"cpu_s"`
	Cores        float64 `json:"cores"`
	RSSMeanBytes int64   `json:"rss_mean_bytes"`
	RSSPeakBytes int64   `json:"rss_peak_bytes"`
	Processes    int     `json:"processes"`
}

// ServicesSample is what the process trees listening on a sample's ports
// (a stack's services:) used over it, summed: each listener's tree once,
// and none that the sampled tree or the embedded database already holds.
type ServicesSample struct {
	CPUSeconds   float64 `json:"cpu_s"`
	Cores        float64 `json:"cores"`
	RSSMeanBytes int64   `json:"rss_mean_bytes"`
	RSSPeakBytes int64   `json:"rss_peak_bytes"`
	Processes    int     `json:"processes"`
	// Unheld are the ports nobody listened on when the sample opened.
	Unheld []int `json:"unheld,omitempty"`
}
