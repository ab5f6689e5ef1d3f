package main

import (
	"strings"

	"github.com/spf13/pflag"

	"github.com/bindrace/bindrace/harness/targets"
)

// targetsDirFlag is --targets-dir: each use adds a folder of target definitions as the flag is
// parsed, so a bad file is a flag error (exit 2) that names the file and the field, before
// anything runs.
type targetsDirFlag []string

func (f *targetsDirFlag) Set(dir string) error {
	if err := targets.AddDir(dir); err != nil {
		return err
	}
	*f = append(*f, dir)
	return nil
}

func (f *targetsDirFlag) String() string { return strings.Join(*f, ",") }
func (f *targetsDirFlag) Type() string   { return "dir" }

// addTargetFlags puts --targets-dir on a command that takes target names.
func addTargetFlags(fs *pflag.FlagSet) {
	fs.Var(&targetsDirFlag{}, "targets-dir", "a folder of target definitions (target.json, NAME.target.json, FOLDER/target.json: docs/targets.md) beside the built-in ones; repeatable")
}
