// Command spin measures what one system call costs the calling process:
// it makes -n getppid calls (a raw system call that does no work) and
// prints the process's CPU time per call, in nanoseconds, from getrusage.
// Run natively and in a container with and without a seccomp filter, the
// differences are the filter's cost per call (bench/container).
//
//	spin -n 5000000
package main

import (
	"flag"
	"fmt"
	"syscall"
	"time"
)

func cpu() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func main() {
	n := flag.Int("n", 5_000_000, "system calls to make")
	flag.Parse()
	before := cpu()
	for range *n {
		syscall.Getppid()
	}
	spent := cpu() - before
	fmt.Printf("%.1f\n", float64(spent.Nanoseconds())/float64(*n))
}
