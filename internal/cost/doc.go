// Package cost turns a run's measurements into machines and a monthly
// price per provider at sustained loads: the cost model of
// docs/cost.md, with the published method's faults fixed (a harmonic mean
// over a traffic mix, every machine able to hold a process, shared and
// burstable vCPUs marked, the database left out and said so).
//
// It is pure: measurements and a pricing table in, a plain table model
// out. The pricing snapshot ships with the binary (DefaultPricing); a user
// passes their own through LoadPricing.
package cost
