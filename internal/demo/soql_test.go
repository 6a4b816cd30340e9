package demo

import (
	"reflect"
	"testing"
)

func TestParseSOQL(t *testing.T) {
	tests := []struct {
		src  string
		want soqlQuery
	}{
		{"SELECT Id FROM Lead", soqlQuery{Fields: []string{"Id"}, Object: "Lead", Limit: -1}},
		{
			"select name , email from lead where status = 'Open' and Amount >= -2.5 and Done = TRUE and Notes__c != NULL order by Name desc limit 10",
			soqlQuery{
				Fields: []string{"name", "email"}, Object: "lead",
				Where: []soqlCondition{
					{"status", "=", "Open"}, {"Amount", ">=", -2.5}, {"Done", "=", true}, {"Notes__c", "!=", nil},
				},
				OrderBy: "Name", Desc: true, Limit: 10,
			},
		},
		{`SELECT Id FROM Lead WHERE Name LIKE 'O\'Brien%' ORDER BY Name ASC`, soqlQuery{
			Fields: []string{"Id"}, Object: "Lead", Where: []soqlCondition{{"Name", "LIKE", "O'Brien%"}}, OrderBy: "Name", Limit: -1,
		}},
		{"SELECT Id FROM Lead WHERE Status <> 'x' LIMIT 0", soqlQuery{
			Fields: []string{"Id"}, Object: "Lead", Where: []soqlCondition{{"Status", "!=", "x"}}, Limit: 0,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			got, err := parseSOQL(tt.src)
			if err != nil {
				t.Fatalf("parseSOQL: %v", err)
			}
			if !reflect.DeepEqual(*got, tt.want) {
				t.Errorf("parseSOQL =\n%+v\nwant\n%+v", *got, tt.want)
			}
		})
	}
}

func TestLikeMatch(t *testing.T) {
	tests := []struct {
		pattern, s string
		want       bool
	}{
		{"abc%", "abcdef", true},
		{"abc%", "xabc", false},
		{"%abc", "xxabc", true},
		{"%b%", "abc", true},
		{"a_c", "abc", true},
		{"a_c", "abbc", false},
		{"a%c%e", "abcde", true},
		{"a%c%e", "abcdf", false},
		{"%", "", true},
		{"", "", true},
		{"", "a", false},
		{"_", "é", true},
		{"%%%%%%%%%%%%%%%%%%%%b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false},
	}
	for _, tt := range tests {
		if got := likeMatch(tt.pattern, tt.s); got != tt.want {
			t.Errorf("likeMatch(%q, %q) = %v, want %v", tt.pattern, tt.s, got, tt.want)
		}
	}
}

func TestConditionHolds(t *testing.T) {
	tests := []struct {
		have any
		op   string
		want any
		hold bool
	}{
		{"Open", "=", "open", true},
		{"Open", "!=", "open", false},
		{nil, "=", nil, true},
		{nil, "!=", nil, false},
		{"x", "=", nil, false},
		{nil, "!=", "x", true},
		{5.0, "=", 5.0, true},
		{5.0, "=", "5", false}, // kinds differ: never equal
		{5.0, ">", 4.0, true},
		{5.0, "<=", 4.0, false},
		{nil, "<", 4.0, false},
		{"2025-03-01", ">", "2025-02-28", true},
		{true, "=", true, true},
		{"Harborview", "LIKE", "harbor%", true},
		{7.0, "LIKE", "7%", false},
	}
	for _, tt := range tests {
		if got := conditionHolds(tt.have, tt.op, tt.want); got != tt.hold {
			t.Errorf("%v %s %v = %v, want %v", tt.have, tt.op, tt.want, got, tt.hold)
		}
	}
}
