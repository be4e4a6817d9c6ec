// Package di is the Go reference for the process suite: a generator (gen)
// of dependency-injection projects wired four ways, and stackbench.di.yaml,
// which measures them. See README.md.
//
// This file pins the libraries the generated projects import, so that
// go mod tidy keeps them in go.mod (the projects themselves are written
// under _gen/, which the go command's patterns skip).
package di

import (
	_ "github.com/google/wire"
	_ "github.com/samber/do/v2"
	_ "go.uber.org/dig"
)
