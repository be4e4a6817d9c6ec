// Package doccheck holds tests that keep the project's documents true to
// its tree: docs/architecture.md's map of packages against what go list
// says of both modules (every package a line, every import edge right, the
// lines in an order where each package imports only lines below it),
// docs/conventions.md's journal record kinds against the constants of
// internal/journal, every relative link of the project's Markdown against
// the files and headings it names, and docs/README.md, the manual's one
// index, against the files of docs/ (each listed once, under one of the
// four readers' headings); and the harness's go.mod against
// the reference servers' libraries. It has no code of its own.
package doccheck
