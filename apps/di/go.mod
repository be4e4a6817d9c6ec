module github.com/stackbench/stackbench/apps/di

go 1.26.8

require (
	github.com/google/wire v0.7.0
	github.com/samber/do/v2 v2.0.0
	go.uber.org/dig v1.19.0
)

require (
	github.com/google/subcommands v1.2.0 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	github.com/samber/go-type-to-string v1.8.0 // indirect
	golang.org/x/mod v0.20.0 // indirect
	golang.org/x/sync v0.8.0 // indirect
	golang.org/x/tools v0.24.1 // indirect
)

tool github.com/google/wire/cmd/wire
