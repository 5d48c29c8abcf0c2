// The owner's resource.ParseQuantity, line by line: a JSON string per input line, "ERR" or
// "<unscaled> <scale>" (the parsed amount as inf.Dec) per output line. tests/core/test_quantity.py
// compares core.quantity with it.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/api/resource"
)

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for in.Scan() {
		var text string
		if err := json.Unmarshal(in.Bytes(), &text); err != nil {
			fmt.Fprintln(out, "BADLINE")
			continue
		}
		q, err := resource.ParseQuantity(text)
		if err != nil {
			fmt.Fprintln(out, "ERR")
			continue
		}
		d := q.AsDec()
		fmt.Fprintln(out, d.UnscaledBig().String(), int64(d.Scale()))
	}
}
