// Package host watches the machine around a benchmark: its busy CPU, read
// through internal/platform (so that foreign CPU, the CPU used by
// processes that are not part of the benchmark, can be derived), suspend
// detection from the boot-time and monotonic clocks, the environment a run
// records (kernel, CPU, memory, limits, versions), and the contention gate
// that keeps windows out of a busy machine (traps T5, T6, T7, T12).
package host
