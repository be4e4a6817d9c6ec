// Package proc starts, watches and stops the process trees of the stacks
// under test, and samples the CPU and memory of process trees over a
// measured window. It reads the process table through internal/platform
// (/proc on Linux) and spawns nothing while a window runs (trap T8).
//
// Supervision: Start runs a Spec's command with /bin/sh -c in its own
// process group, appends its output to a log file, and polls the health
// path every millisecond until the first 200 (BootDuration). The port must
// be free before the start (trap T11): PortHolder names the process that
// holds it. Check, called after every window, proves the process is alive
// and its tree still owns the listening socket. Stop sends SIGTERM to the
// group and to every descendant seen, then SIGKILL after a grace period,
// so that no orphan survives.
//
// Sampling: a Sampler takes an opening snapshot (Start), samples RSS every
// interval, and a closing snapshot (Stop) that yields WindowStats: per
// group the CPU seconds used during exactly the window, cores, RSS mean
// and peak; the host's busy CPU; foreign CPU (host minus every group);
// whether the machine was suspended; and the sampler's own CPU cost.
//
// Containers: a Spec with a Container runs its server under a container
// runtime, outside the harness's tree; Process.Group then measures the
// container's cgroup (CgroupGroup), and RuntimeGroup and DaemonsGroup the
// runtime's command and daemons, which are the harness's overhead.
//
// CPU of a process tree is the change of Σ (utime+stime+cutime+cstime)
// over the processes of the tree: a child that exits and is waited for by a
// member moves its time into that member's cutime/cstime, so the sum is
// conserved. A process that leaves the tree some other way (it exits after
// being re-parented, or the root itself exits and is reaped by us) keeps
// the total it had at its last sample, so its CPU up to that sample counts
// and the delta never goes negative; CPU it burns after its last sample is
// lost (at most one interval). See docs/methodology.md.
package proc
