// The PXC operator's ConfigHasKey (pkg/apis/pxc/v1/pxc_types.go, 1.20.0) line by line: a JSON string (a
// spec.pxc.configuration) per input line; "ERR" when go-ini refuses it, else a JSON object of whether section
// "mysqld" has each key the operator asks about. tests/core/test_operator_autotune.py compares core.go_ini with it.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/go-ini/ini"
)

func hasKey(conf, section, key string) (bool, error) {
	file, err := ini.LoadSources(ini.LoadOptions{AllowBooleanKeys: true}, []byte(conf))
	if err != nil {
		return false, err
	}
	s, err := file.GetSection(section)
	if err != nil && strings.Contains(err.Error(), "does not exist") {
		return false, nil
	} else if err != nil {
		return false, err
	}
	return s.HasKey(key), nil
}

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
		answer := map[string]bool{}
		failed := false
		for _, key := range []string{"max_connections", "innodb_buffer_pool_size"} {
			found, err := hasKey(text, "mysqld", key)
			if err != nil {
				failed = true
				break
			}
			answer[key] = found
		}
		if failed {
			fmt.Fprintln(out, "ERR")
			continue
		}
		encoded, _ := json.Marshal(answer)
		fmt.Fprintln(out, string(encoded))
	}
}
