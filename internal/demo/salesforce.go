package demo

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const salesforceInstructions = "A demo Salesforce org with synthetic data (every person, company, email and phone number is fictional). " +
	"Objects: Lead (300 records), Contact, Account, Opportunity and SalesMeeting (one per Lead discussed in the Q3 pipeline review, " +
	"with the Lead's Id; its Notes field holds meeting notes). Find records with query (a SOQL subset), " +
	"read one with getRecord and change fields with updateRecord; changes last as long as the server runs."

type queryInput struct {
	Query string `json:"query" jsonschema:"A SOQL query, for example SELECT Id, Name, Email FROM Lead WHERE Status = 'Working - Contacted' ORDER BY Name LIMIT 10"`
}

type queryResult struct {
	Records   []record `json:"records"`
	TotalSize int      `json:"totalSize"`
}

type getRecordInput struct {
	ObjectType string `json:"objectType" jsonschema:"Object type: Lead, Contact, Account, Opportunity or SalesMeeting"`
	RecordID   string `json:"recordId" jsonschema:"Id of the record, for example 00Q5f000001abcXYZ"`
}

type updateRecordInput struct {
	ObjectType string         `json:"objectType" jsonschema:"Object type: Lead, Contact, Account, Opportunity or SalesMeeting"`
	RecordID   string         `json:"recordId" jsonschema:"Id of the record to update"`
	Data       map[string]any `json:"data" jsonschema:"Fields to set, as field name to value (string, number, boolean or null); new custom fields ending in __c are accepted. The Name of a Lead or Contact sets its FirstName and LastName"`
}

type updateRecordResult struct {
	ID      string `json:"id"`
	Success bool   `json:"success"`
}

// registerSalesforce adds the salesforce tools over a fresh copy of the CRM:
// updates made through one server are never seen by another.
func registerSalesforce(s *mcp.Server) {
	store := newRecordStore(sharedData().crm)
	addTypedTool(s, &mcp.Tool{
		Name:  "query",
		Title: "Run SOQL query",
		Description: "Runs a SOQL query against Salesforce and returns the matching records. " +
			"Supported subset: SELECT f1, f2 FROM Object [WHERE field = 'value' [AND ...]] [ORDER BY field [ASC|DESC]] [LIMIT n], " +
			"with operators =, !=, <, <=, >, >= and LIKE 'abc%'; Id is always returned.",
		Annotations:  readOnly(),
		OutputSchema: queryOutput,
	}, func(_ context.Context, in queryInput) (queryResult, error) {
		q, err := parseSOQL(in.Query)
		if err != nil {
			return queryResult{}, err
		}
		recs, err := store.query(q)
		if err != nil {
			return queryResult{}, err
		}
		return queryResult{Records: recs, TotalSize: len(recs)}, nil
	})
	addTypedTool(s, &mcp.Tool{
		Name:         "getRecord",
		Title:        "Get record",
		Description:  "Retrieves one Salesforce record with all of its fields, by object type and record id.",
		Annotations:  readOnly(),
		OutputSchema: getRecordOutput,
	}, func(_ context.Context, in getRecordInput) (record, error) {
		return store.get(in.ObjectType, strings.TrimSpace(in.RecordID))
	})
	addTypedTool(s, &mcp.Tool{
		Name:  "updateRecord",
		Title: "Update record",
		Description: "Updates fields of one Salesforce record; changes last for the life of the server. " +
			"To attach long text such as a meeting transcript, set the Notes field of the Lead's SalesMeeting (same Id as the Lead) or the Lead's Notes__c or Description field.",
		Annotations:  writes(true, true),
		OutputSchema: updateRecordOutput,
	}, func(_ context.Context, in updateRecordInput) (updateRecordResult, error) {
		id := strings.TrimSpace(in.RecordID)
		if err := store.update(in.ObjectType, id, in.Data); err != nil {
			return updateRecordResult{}, fmt.Errorf("updating %s %q: %w", in.ObjectType, id, err)
		}
		return updateRecordResult{ID: id, Success: true}, nil
	})
}
