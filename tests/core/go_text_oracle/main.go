// The oracle of core.go_text and core.go_version: Go's own time.ParseDuration and strconv.Atoi, and
// hashicorp/go-version v1.8.0 (the PXC operator's pin) NewVersion and Compare. One JSON request a line on stdin
// ({"kind": "duration"|"atoi"|"version"|"print-ranges", "text": ..., "other": ...}), one answer a line on stdout:
// "ok <value>" or "error <Go's message>". "print-ranges" answers the runes strconv.IsPrint accepts (what
// strconv.Quote leaves unescaped in the messages), as hex ranges "lo-hi" separated by spaces.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode"

	version "github.com/hashicorp/go-version"
)

type request struct {
	Kind  string `json:"kind"`
	Text  string `json:"text"`
	Other string `json:"other"`
}

func answer(r request) string {
	switch r.Kind {
	case "duration":
		d, err := time.ParseDuration(r.Text)
		if err != nil {
			return "error " + err.Error()
		}
		return fmt.Sprintf("ok %d", int64(d))
	case "atoi":
		n, err := strconv.Atoi(r.Text)
		if err != nil {
			return "error " + err.Error()
		}
		return fmt.Sprintf("ok %d", n)
	case "version":
		v, err := version.NewVersion(r.Text)
		if err != nil {
			return "error " + err.Error()
		}
		o := version.Must(version.NewVersion(r.Other))
		return fmt.Sprintf("ok %d", v.Compare(o))
	case "print-ranges":
		return "ok " + printRanges()
	}
	return "error unknown kind"
}

func printRanges() string {
	var ranges []string
	start := -1
	for r := 0; r <= unicode.MaxRune+1; r++ {
		printable := r <= unicode.MaxRune && strconv.IsPrint(rune(r))
		if printable && start < 0 {
			start = r
		} else if !printable && start >= 0 {
			ranges = append(ranges, fmt.Sprintf("%x-%x", start, r-1))
			start = -1
		}
	}
	return strings.Join(ranges, " ")
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for in.Scan() {
		var r request
		if err := json.Unmarshal(in.Bytes(), &r); err != nil {
			panic(err)
		}
		// one answer a line: Go's messages quote the text, which may hold a line break
		fmt.Fprintln(out, strings.ReplaceAll(strings.ReplaceAll(answer(r), "\n", "\\n"), "\r", "\\r"))
	}
}
