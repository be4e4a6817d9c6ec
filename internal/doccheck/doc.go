// Package doccheck holds tests that keep the project's documents true to
// its tree: docs/architecture.md's map of packages against what go list
// says of both modules (every package a line, every import edge right, the
// lines in an order where each package imports only lines below it),
// docs/conventions.md's journal record kinds against the constants of
// internal/journal, and every relative link of docs/ and README.md
// against the files it names. It has no code of its own.
package doccheck
