package demo

import (
	"fmt"
	"strconv"
)

// Titles of the two sheets, as listFiles shows them.
const (
	ordersTitle  = "Orders 2025 - full export"
	targetsTitle = "Regional targets 2025"
)

// orderRowCount is the size of the article's "10,000-row sheet".
const orderRowCount = 10000

// sheet is one spreadsheet of the google-drive demo. Rows are keyed by the
// names in Columns. Every cell value is a string, formatted as the sheet
// shows it (a quantity "12", an amount "1234.50"): the Google Sheets API
// returns cells so by default (valueRenderOption FORMATTED_VALUE), and a
// program converts what it computes with (Number(row["amount"])). Sheets
// are shared and must not be modified after they are built.
type sheet struct {
	ID      string
	Title   string
	Columns []string
	Rows    []map[string]string
}

// orderColumns keep the article's spelling: "Status" is capitalised, the rest
// are camelCase, as exported sheets often are.
var orderColumns = []string{
	"orderId", "orderDate", "salesforceId", "name", "email", "phone",
	"product", "quantity", "amount", "Status",
}

// buildOrders generates the 10,000 orders of sheet abc123. Each row belongs
// to a Lead of crm, so row.salesforceId always resolves in the salesforce
// demo server. Dates rise with the order id across Jan–Sep 2025.
func buildOrders(crm *crmData) *sheet {
	rng := newPRNG(seedOrders)
	rows := make([]map[string]string, orderRowCount)
	for i := range rows {
		lead := rng.intn(len(crm.leadIDs))
		p := crm.leadPeople[lead]
		item := pick(rng, products)
		qty := rng.between(1, 25)
		discountPct := []int{0, 0, 0, 5, 10}[rng.intn(5)]
		rows[i] = map[string]string{
			"orderId":      orderID(i),
			"orderDate":    isoDate(demoEpoch.AddDate(0, 0, i*270/orderRowCount)),
			"salesforceId": crm.leadIDs[lead],
			"name":         p.fullName(),
			"email":        p.Email,
			"phone":        p.Phone,
			"product":      item.Name,
			"quantity":     strconv.Itoa(qty),
			"amount":       dollars(qty * item.UnitPriceCents * (100 - discountPct) / 100),
			"Status":       orderStatus(rng),
		}
	}
	return &sheet{ID: "abc123", Title: ordersTitle, Columns: orderColumns, Rows: rows}
}

func orderID(i int) string { return fmt.Sprintf("ORD-%06d", 100001+i) }

// orderStatus draws a status: about 4% pending, 7% cancelled, 29% shipped,
// the rest delivered.
func orderStatus(rng *prng) string {
	switch r := rng.intn(1000); {
	case r < 40:
		return "pending"
	case r < 110:
		return "cancelled"
	case r < 400:
		return "shipped"
	default:
		return "delivered"
	}
}

// buildTargets generates the small second sheet, def456.
func buildTargets() *sheet {
	rng := newPRNG(seedOrders + 1)
	regions := []string{"West", "Central", "East", "International"}
	owners := []teamMember{salesTeam[1], salesTeam[2], salesTeam[5], salesTeam[0]}
	var rows []map[string]string
	for i, region := range regions {
		for q := 1; q <= 4; q++ {
			target := rng.between(40, 90) * 10000
			booked := 0
			if q <= 3 { // Q4 has not started in the demo's world.
				booked = target * rng.between(70, 125) / 100
			}
			rows = append(rows, map[string]string{
				"region": region, "quarter": fmt.Sprintf("Q%d 2025", q),
				"owner": owners[i].Name, "ownerEmail": owners[i].Email,
				"target": dollars(target * 100), "booked": dollars(booked * 100),
			})
		}
	}
	return &sheet{
		ID: "def456", Title: targetsTitle,
		Columns: []string{"region", "quarter", "owner", "ownerEmail", "target", "booked"},
		Rows:    rows,
	}
}
