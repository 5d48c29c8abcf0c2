// The owner's reading of a backup schedule: robfig/cron v3.0.1 ParseStandard, as both Percona operators call
// it (PXC 1.20.0 pkg/controller/pxc/controller.go AddFuncWithSeconds, PS 1.2.0 pkg/controller/ps/cron.go
// addFuncWithSeconds), then SpecSchedule.Next repeated as robfig's scheduler does (cron.go run: each entry's
// next time is Next of the time it last fired).
//
// One JSON request per input line, one answer per output line:
//
//	{"spec": S, "after": UNIX, "count": N}  ->  "ERR <message>" when ParseStandard refuses S;
//	                                            "EVERY" for a ConstantDelaySchedule (@every), which the
//	                                            operators' *cron.SpecSchedule assertion cannot take;
//	                                            else "OK" and N Unix times (0 where Next returns the zero time)
//	{"spec": S, "from": UNIX, "to": UNIX, "keep": K}
//	                                         -> "ERR"/"EVERY" as above, else "WINDOW <min> <max> <runs>": the
//	                                            shortest and longest span, in seconds, of K consecutive runs in
//	                                            [from, to), and how many runs there were ("WINDOW -1 -1 n"
//	                                            when fewer than K)
//
// The operators then replace the schedule's seconds with the second they registered it; the spans do not
// depend on it, and the times here keep ParseStandard's second 0.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
)

type request struct {
	Spec  string `json:"spec"`
	After int64  `json:"after"`
	Count int    `json:"count"`
	From  int64  `json:"from"`
	To    int64  `json:"to"`
	Keep  int    `json:"keep"`
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for in.Scan() {
		var req request
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			fmt.Fprintln(out, "BADLINE")
			continue
		}
		fmt.Fprintln(out, answer(req))
	}
}

func answer(req request) (line string) {
	defer func() {
		// a TZ= prefix without a space slices spec[eq+1:-1] and panics: the operator's goroutine would too
		if recovered := recover(); recovered != nil {
			line = "PANIC"
		}
	}()
	schedule, err := cron.ParseStandard(req.Spec)
	if err != nil {
		return "ERR " + strings.ReplaceAll(err.Error(), "\n", " ")
	}
	spec, ok := schedule.(*cron.SpecSchedule)
	if !ok {
		return "EVERY"
	}
	if req.Keep > 0 {
		return window(spec, req)
	}
	times := []string{"OK"}
	t := time.Unix(req.After, 0).UTC()
	for i := 0; i < req.Count; i++ {
		t = spec.Next(t)
		if t.IsZero() {
			times = append(times, "0")
			break
		}
		times = append(times, fmt.Sprint(t.Unix()))
	}
	return strings.Join(times, " ")
}

func window(spec *cron.SpecSchedule, req request) string {
	var runs []int64
	t := time.Unix(req.From-1, 0).UTC()
	for {
		t = spec.Next(t)
		if t.IsZero() || t.Unix() >= req.To {
			break
		}
		runs = append(runs, t.Unix())
	}
	if len(runs) < req.Keep {
		return fmt.Sprintf("WINDOW -1 -1 %d", len(runs))
	}
	low, high := int64(-1), int64(-1)
	for i := 0; i+req.Keep-1 < len(runs); i++ {
		span := runs[i+req.Keep-1] - runs[i]
		if low < 0 || span < low {
			low = span
		}
		if span > high {
			high = span
		}
	}
	return fmt.Sprintf("WINDOW %d %d %d", low, high, len(runs))
}
