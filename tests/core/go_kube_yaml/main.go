// kubectl's reading of a manifest stream, with kubectl's own code: one JSON string per input line (a whole
// stream, as `kubectl apply -f` reads a file), one JSON line out per input.
//
// cli-runtime v0.36.3 pkg/resource/visitor.go StreamVisitor.Visit: apimachinery's NewYAMLOrJSONDecoder (documents
// split on `---` lines, sigs.k8s.io/yaml v1.6.0 over go.yaml.in/yaml/v2 v2.4.3 for YAML) decodes each document
// into a RawExtension; blank and `null` documents are skipped; mapper.go infoForData decodes the rest with
// metadataValidatingDecoder{unstructured.UnstructuredJSONScheme} (numbers: int64 when the literal is an integer
// that fits, float64 otherwise; the metadata must decode into ObjectMeta).
//
// Out: {"error": "..."} when the stream stops being readable, else {"documents": [...]}, each document
// {"value": <tagged>} or {"value": <tagged>, "object": "<error of the object decoding>"}. <tagged> is the decoded
// value with every float64 written {"$f": strconv.FormatFloat(f, 'g', -1, 64)} and every int64 as a JSON integer,
// so the Python side sees which one kubectl holds.
// tests/core/test_kube_yaml_oracle.py compares core.kube_yaml with it.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/yaml"
)

// cli-runtime pkg/resource/metadata_decoder.go
type metadataOnlyObject struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

func tagged(v interface{}) interface{} {
	switch x := v.(type) {
	case map[string]interface{}:
		out := make(map[string]interface{}, len(x))
		for k, item := range x {
			out[k] = tagged(item)
		}
		return out
	case []interface{}:
		out := make([]interface{}, len(x))
		for i, item := range x {
			out[i] = tagged(item)
		}
		return out
	case float64:
		return map[string]string{"$f": strconv.FormatFloat(x, 'g', -1, 64)}
	case int64:
		return json.Number(strconv.FormatInt(x, 10))
	default:
		return x
	}
}

func objectError(raw []byte) string {
	if _, _, err := unstructured.UnstructuredJSONScheme.Decode(raw, nil, nil); err != nil {
		return err.Error()
	}
	if err := utiljson.Unmarshal(raw, &metadataOnlyObject{}); err != nil {
		return err.Error()
	}
	return ""
}

func read(stream []byte) map[string]interface{} {
	d := yaml.NewYAMLOrJSONDecoder(bytes.NewReader(stream), 4096)
	documents := []interface{}{}
	for {
		ext := runtime.RawExtension{}
		if err := d.Decode(&ext); err != nil {
			if err == io.EOF {
				return map[string]interface{}{"documents": documents}
			}
			return map[string]interface{}{"error": err.Error()}
		}
		ext.Raw = bytes.TrimSpace(ext.Raw)
		if len(ext.Raw) == 0 || bytes.Equal(ext.Raw, []byte("null")) {
			continue
		}
		var value interface{}
		if err := utiljson.Unmarshal(ext.Raw, &value); err != nil {
			documents = append(documents, map[string]interface{}{"undecodable": err.Error()})
			continue
		}
		document := map[string]interface{}{"value": tagged(value)}
		if problem := objectError(ext.Raw); problem != "" {
			document["object"] = problem
		}
		documents = append(documents, document)
	}
}

func main() {
	in := bufio.NewReader(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for {
		line, err := in.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var stream string
			var answer interface{}
			if json.Unmarshal(line, &stream) != nil {
				answer = map[string]string{"error": "BADLINE"}
			} else {
				answer = read([]byte(stream))
			}
			encoded, _ := json.Marshal(answer)
			fmt.Fprintln(out, string(encoded))
			out.Flush() // the test asks one stream at a time
		}
		if err != nil {
			return
		}
	}
}
