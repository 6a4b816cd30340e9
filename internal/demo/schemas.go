package demo

import "encoding/json"

// Output schemas of the typed tools, written by hand.
//
// The SDK can infer schemas from the Out types, but it renders every Go
// slice as ["null","array"] and every map as an object without required
// keys, which would surface as "| null" noise in the generated TypeScript
// and lose "Id is always present". Hand-written schemas also reach clients
// verbatim, with their property order. The SDK validates every result
// against them, so a drift between these and the Go types fails the tests.

var listFilesOutput = json.RawMessage(`{
  "type": "object",
  "properties": {
    "files": {
      "type": "array",
      "description": "Matching files, most recently modified first",
      "items": {
        "type": "object",
        "properties": {
          "id": {"type": "string", "description": "File id; pass it to getDocument or getSheet depending on mimeType"},
          "name": {"type": "string", "description": "File name"},
          "mimeType": {"type": "string", "description": "MIME type; Google Docs are application/vnd.google-apps.document, Google Sheets application/vnd.google-apps.spreadsheet"},
          "modifiedTime": {"type": "string", "description": "Last modification time (RFC 3339, UTC)"}
        },
        "required": ["id", "name", "mimeType", "modifiedTime"],
        "additionalProperties": false
      }
    }
  },
  "required": ["files"],
  "additionalProperties": false
}`)

var getDocumentOutput = json.RawMessage(`{
  "type": "object",
  "properties": {
    "title": {"type": "string", "description": "Document title (present unless fields excludes it)"},
    "content": {"type": "string", "description": "Full plain-text content (present unless fields excludes it)"}
  },
  "additionalProperties": false
}`)

var getSheetOutput = json.RawMessage(`{
  "type": "object",
  "properties": {
    "sheetId": {"type": "string", "description": "Id of the spreadsheet"},
    "title": {"type": "string", "description": "Spreadsheet title"},
    "columns": {"type": "array", "items": {"type": "string"}, "description": "Column names in sheet order"},
    "rows": {
      "type": "array",
      "description": "Every row, as an object keyed by column name; every cell is a string, formatted as the sheet shows it (\"12\", \"1234.50\")",
      "items": {"type": "object", "additionalProperties": {"type": "string"}}
    }
  },
  "required": ["sheetId", "title", "columns", "rows"],
  "additionalProperties": false
}`)

// salesforceRecordSchema is an open object: fields differ per object type
// and custom fields (ending in __c) can be added by updateRecord.
const salesforceRecordSchema = `{
  "type": "object",
  "description": "A record: Id plus field name to value (string, number, boolean or null)",
  "properties": {"Id": {"type": "string", "description": "Record id"}},
  "required": ["Id"],
  "additionalProperties": true
}`

var queryOutput = json.RawMessage(`{
  "type": "object",
  "properties": {
    "records": {"type": "array", "description": "Matching records with Id and the selected fields", "items": ` + salesforceRecordSchema + `},
    "totalSize": {"type": "integer", "description": "Number of records returned"}
  },
  "required": ["records", "totalSize"],
  "additionalProperties": false
}`)

var getRecordOutput = json.RawMessage(salesforceRecordSchema)

var updateRecordOutput = json.RawMessage(`{
  "type": "object",
  "properties": {
    "id": {"type": "string", "description": "Id of the updated record"},
    "success": {"type": "boolean", "description": "True when the update was applied"}
  },
  "required": ["id", "success"],
  "additionalProperties": false
}`)

// Schemas of the slack tools, which are registered without the SDK's typed
// layer (see addTextTool).

var getChannelHistoryInput = json.RawMessage(`{
  "type": "object",
  "properties": {
    "channel": {"type": "string", "description": "Channel id such as C123456 (a #name also works)"},
    "limit": {"type": "integer", "minimum": 1, "maximum": 200, "description": "Maximum number of messages to return, newest first; default 20"}
  },
  "required": ["channel"],
  "additionalProperties": false
}`)

// getChannelHistoryOutput is an array: the article's polling loop treats
// the result as the list of messages.
var getChannelHistoryOutput = json.RawMessage(`{
  "type": "array",
  "description": "Messages of the channel, newest first",
  "items": {
    "type": "object",
    "properties": {
      "ts": {"type": "string", "description": "Timestamp of the message, unique in the channel"},
      "user": {"type": "string", "description": "Author: a user name or a bot"},
      "text": {"type": "string", "description": "Message text"}
    },
    "required": ["ts", "user", "text"],
    "additionalProperties": false
  }
}`)

var postMessageInput = json.RawMessage(`{
  "type": "object",
  "properties": {
    "channel": {"type": "string", "description": "Channel id such as C123456 (a #name also works)"},
    "text": {"type": "string", "description": "Message text"}
  },
  "required": ["channel", "text"],
  "additionalProperties": false
}`)
