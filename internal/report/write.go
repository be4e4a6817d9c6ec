package report

import (
	"bytes"
	"io"
	"path/filepath"

	"github.com/stackbench/stackbench/internal/fileutil"
)

// The files a report writes into a results directory.
const (
	HTMLFile     = "report.html"
	MarkdownFile = "summary.md"
	JSONFile     = "report.json"
	BenchFile    = "bench.txt"
)

// Format is one way to render a model: its file name in a results
// directory and its renderer.
type Format struct {
	Name  string // as -o takes it: html, md, json, bench
	File  string
	Write func(io.Writer, *Model) error
}

// Formats lists every format, in the order WriteAll writes them.
var Formats = []Format{
	{"html", HTMLFile, WriteHTML},
	{"md", MarkdownFile, WriteMarkdown},
	{"json", JSONFile, WriteJSON},
	{"bench", BenchFile, WriteBench},
}

// FormatByName returns the format -o names.
func FormatByName(name string) (Format, bool) {
	for _, f := range Formats {
		if f.Name == name {
			return f, true
		}
	}
	return Format{}, false
}

// WriteAll writes every format of the model into dir.
func WriteAll(dir string, m *Model) error {
	for _, f := range Formats {
		if err := WriteFile(dir, m, f); err != nil {
			return err
		}
	}
	return nil
}

// WriteFile renders one format into dir, replacing the file whole: it is
// written beside and renamed, so a reader never sees half a report.
func WriteFile(dir string, m *Model, f Format) error {
	var b bytes.Buffer
	if err := f.Write(&b, m); err != nil {
		return err
	}
	return fileutil.WriteFile(filepath.Join(dir, f.File), b.Bytes(), 0o600)
}
