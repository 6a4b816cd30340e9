package skills

import (
	"bytes"
	"testing"
)

func TestJSONIndentKeepsPlainArraysOnOneLine(t *testing.T) {
	var b bytes.Buffer
	in := `{"type":"object","required":["a","b"],"properties":{"a":{"enum":["x, y","z\"q",1,null]},"b":{"type":"array","items":[{"type":"string"}]}}}`
	if err := jsonIndent(&b, []byte(in)); err != nil {
		t.Fatal(err)
	}
	want := `{
  "type": "object",
  "required": ["a", "b"],
  "properties": {
    "a": {
      "enum": ["x, y", "z\"q", 1, null]
    },
    "b": {
      "type": "array",
      "items": [
        {
          "type": "string"
        }
      ]
    }
  }
}
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
